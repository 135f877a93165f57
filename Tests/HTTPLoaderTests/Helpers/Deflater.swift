import CHTTPTestSupport
import Foundation

/// zlib's deflate as a stream, for gzip and deflate bodies: feed bytes (or zeros, for bombs that must
/// never exist in memory uncompressed) and take the compressed bytes each call produces.
final class Deflater {
    private let stream: OpaquePointer

    /// A gzip stream (`Content-Encoding: gzip`) or a zlib one (`Content-Encoding: deflate`).
    init(gzip: Bool, level: Int32 = 6) {
        stream = ctest_deflater_new(gzip ? ctest_gzip : ctest_zlib, level)!
    }

    deinit { ctest_deflater_free(stream) }

    /// Compresses `bytes`, flushed so everything so far decodes; `finish` ends the stream.
    func compress(_ bytes: [UInt8], finish: Bool = false) -> [UInt8] {
        bytes.withUnsafeBytes { feed($0.baseAddress, $0.count, finish: finish) }
    }

    /// Compresses `count` zero bytes without allocating them.
    func compressZeros(_ count: Int, finish: Bool = false) -> [UInt8] { feed(nil, count, finish: finish) }

    /// One-shot gzip (or zlib) of `bytes`.
    static func compressed(_ bytes: [UInt8], gzip: Bool) -> [UInt8] {
        Deflater(gzip: gzip).compress(bytes, finish: true)
    }

    private func feed(_ input: UnsafeRawPointer?, _ count: Int, finish: Bool) -> [UInt8] {
        var output: [UInt8] = []
        // The sink appends each piece to `output`, passed through the context pointer for this call only.
        let status = withUnsafeMutablePointer(to: &output) { pointer in
            ctest_deflater_feed(
                stream, input, count, finish ? 1 : 0,
                { context, bytes, length in
                    let output = context!.assumingMemoryBound(to: [UInt8].self)
                    output.pointee.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
                }, pointer)
        }
        precondition(status == 0, "zlib deflate failed")
        return output
    }
}

/// A valid gzip stream of `megabytes` MB of zeros (1 GB compresses to about 1 MB), built without
/// compressing it all: after the first megabyte, zlib turns every further megabyte of zeros followed by
/// a sync flush into the same bytes, so the stream is a head, one piece repeated, and a tail (an empty
/// final block, the CRC-32 and the length).
struct GzipZeroBomb: Sendable {
    let head: [UInt8]
    let piece: [UInt8]
    let repeats: Int
    let tail: [UInt8]

    static let megabyte = 1 << 20

    init(megabytes: Int) {
        precondition(megabytes >= 2)
        let deflater = Deflater(gzip: true)
        head = deflater.compressZeros(Self.megabyte)
        piece = deflater.compressZeros(Self.megabyte)
        precondition(deflater.compressZeros(Self.megabyte) == piece, "zlib no longer repeats itself on zeros")
        repeats = megabytes - 1
        let decoded = UInt64(megabytes) * UInt64(Self.megabyte)
        let crc = ctest_crc32_of_zeros(decoded)
        // An empty final fixed-Huffman block (BFINAL=1, BTYPE=01, end-of-block), byte-aligned after the flush.
        let emptyFinalBlock: [UInt8] = [0x03, 0x00]
        let length = UInt32(truncatingIfNeeded: decoded)
        tail =
            emptyFinalBlock + withUnsafeBytes(of: crc.littleEndian, Array.init)
            + withUnsafeBytes(of: length.littleEndian, Array.init)
    }

    /// Compressed size in all.
    var compressedCount: Int { head.count + piece.count * repeats + tail.count }
}
