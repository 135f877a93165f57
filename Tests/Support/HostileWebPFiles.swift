import Foundation
import WebImageCore

extension HostileFiles {
    /// A lossless WebP of `width` x `height` whose entropy image names `groups` Huffman code groups
    /// (at most 65,536), each 4x4 block its own group in turn, every group made of single-symbol codes
    /// (so the pixels cost no bits). libwebp allocates the tables of every group up front: about 12 KB
    /// each, 800 MB for 65,536 groups in a file of about 300 KB. With `groups` of 1,000 or so it is an
    /// ordinary valid file (a black image).
    ///
    /// The entropy image needs `groups` blocks, so `width` x `height` must have at least `16 * groups`
    /// pixels (1024 x 1024 for 65,536).
    public static func manyHuffmanGroupsLosslessWebP(
        width: Int = 1024, height: Int = 1024,
        groups: Int = 65_536
    ) -> Data {
        precondition((1...65_536).contains(groups), "group indexes are 16 bits")
        let entropyWidth = (width + 3) / 4, entropyHeight = (height + 3) / 4
        precondition(entropyWidth * entropyHeight >= groups, "the image is too small to name that many groups")
        var bits = VP8LBitWriter()
        bits.writeHeader(width: width, height: height)
        bits.write(0, 1)  // no transform
        bits.write(0, 1)  // no colour cache
        bits.write(1, 1)  // meta Huffman codes: an entropy image follows
        bits.write(0, 3)  // precision 2: one entropy pixel per 4x4 block
        // The entropy image: group index in red (high byte) and green (low byte).
        bits.write(0, 1)  // no colour cache
        bits.writeUniformByteCode(alphabetSize: VP8LBitWriter.greenAlphabetSize)  // green
        bits.writeUniformByteCode(alphabetSize: 256)  // red
        bits.writeSingleSymbolCode(0)  // blue
        bits.writeSingleSymbolCode(0)  // alpha
        bits.writeSingleSymbolCode(0)  // distance
        for block in 0..<entropyWidth * entropyHeight {
            let group = block % groups
            bits.writeByteSymbol(group & 0xff)
            bits.writeByteSymbol(group >> 8)
        }
        // Every group: five single-symbol codes of symbol 0 (4 bits each), black pixels.
        for _ in 0..<groups {
            for _ in 0..<5 { bits.writeSingleSymbolCode(0) }
        }
        return riff(chunks: [("VP8L", bits.bytes)])
    }

    /// An animated WebP of `frames` frames on a `canvas`-sized canvas, each frame a lossless bitstream of
    /// `frameSize` (the canvas's size by default) in one flat colour that costs no bits per pixel: about
    /// 44 bytes a frame, 440 KB for 10,000 frames, however large the frames. Frame `damagedFrame` (if
    /// any) has a broken Huffman code, which libwebp rejects only when it decodes that frame.
    public static func manyFramesAnimatedWebP(
        frames: Int, canvas: PixelSize, frameSize: PixelSize? = nil,
        damagedFrame: Int? = nil
    ) -> Data {
        let size = frameSize ?? canvas
        var chunks: [(String, [UInt8])] = []
        // VP8X: animation flag; canvas width - 1 and height - 1 in 24 bits each.
        chunks.append(("VP8X", [0x02, 0, 0, 0] + le(canvas.width - 1, 3) + le(canvas.height - 1, 3)))
        // ANIM: transparent background, loop forever.
        chunks.append(("ANIM", [0, 0, 0, 0, 0, 0]))
        for index in 0..<frames {
            var bits = VP8LBitWriter()
            bits.writeHeader(width: size.width, height: size.height)
            bits.write(0, 1)  // no transform
            bits.write(0, 1)  // no colour cache
            bits.write(0, 1)  // one group
            if index == damagedFrame {
                // A length-coded green code whose code-length code has no symbols: a bitstream error.
                bits.write(0, 1)
                bits.write(0, 4)
                bits.write(0, 12)
                bits.write(0, 8)
            } else {
                for symbol in [index & 0xff, (index >> 8) & 0xff, 200, 255, 0] { bits.writeSingleSymbolCode(symbol) }
            }
            let frame = riffChunk("VP8L", bits.bytes)
            // ANMF: offset / 2, size - 1, duration (ms), flags (no blending, no disposal).
            let header = le(0, 3) + le(0, 3) + le(size.width - 1, 3) + le(size.height - 1, 3) + le(100, 3) + [0x02]
            chunks.append(("ANMF", header + frame))
        }
        return riff(chunks: chunks)
    }

    private static func le(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func riffChunk(_ fourcc: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourcc.utf8) + le(payload.count, 4) + payload + (payload.count & 1 == 1 ? [0] : [])
    }

    private static func riff(chunks: [(String, [UInt8])]) -> Data {
        var body = Array("WEBP".utf8)
        for (fourcc, payload) in chunks { body += riffChunk(fourcc, payload) }
        return Data(Array("RIFF".utf8) + le(body.count, 4) + body)
    }
}

/// Writes a VP8L bitstream: bits least significant first, Huffman codes most significant bit first
/// (WebP Lossless Bitstream Specification, RFC 9649).
struct VP8LBitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    /// Green's alphabet without a colour cache: 256 values and 24 length prefixes.
    static let greenAlphabetSize = 280

    /// Writes the `count` low bits of `value`, least significant first.
    mutating func write(_ value: Int, _ count: Int) {
        for i in 0..<count {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (bitCount % 8)) }
            bitCount += 1
        }
    }

    /// The 5-byte VP8L header: signature, size, no alpha hint, version 0.
    mutating func writeHeader(width: Int, height: Int) {
        write(0x2f, 8)
        write(width - 1, 14)
        write(height - 1, 14)
        write(0, 1)
        write(0, 3)
    }

    /// A simple code of one symbol, which costs no bits per use.
    mutating func writeSingleSymbolCode(_ symbol: Int) {
        write(1, 1)  // simple
        write(0, 1)  // one symbol
        if symbol < 2 {
            write(0, 1)
            write(symbol, 1)
        } else {
            write(1, 1)
            write(symbol, 8)
        }
    }

    /// A length-coded code giving symbols 0...255 length 8 and the rest of `alphabetSize` length 0, so
    /// symbol `s` is written as the 8 bits of `s` (``writeByteSymbol(_:)``).
    mutating func writeUniformByteCode(alphabetSize: Int) {
        write(0, 1)  // length-coded
        // The code-length code uses lengths 0 and 8, each with a 1-bit code; 8 is 12th in storage order.
        let order = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8]
        write(order.count - 4, 4)
        for symbol in order { write(symbol == 0 || symbol == 8 ? 1 : 0, 3) }
        write(0, 1)  // lengths for the whole alphabet
        // Canonical codes: length 0 is "0", length 8 is "1".
        for symbol in 0..<alphabetSize { write(symbol < 256 ? 1 : 0, 1) }
    }

    /// Symbol `value` of a ``writeUniformByteCode(alphabetSize:)`` code: its 8 bits, most significant first.
    mutating func writeByteSymbol(_ value: Int) {
        for bit in (0..<8).reversed() { write((value >> bit) & 1, 1) }
    }
}
