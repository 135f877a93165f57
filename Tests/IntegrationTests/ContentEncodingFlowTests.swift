import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageCore
import WebImageTestSupport

/// An image served with `Content-Encoding: gzip` decodes through the whole flow, as in a browser.
@Suite("Content encodings")
struct ContentEncodingFlowTests {
    @Test func aGzipEncodedPNGDecodes() async throws {
        let png = try [UInt8](Data(contentsOf: WholeFlowTests.resources.appendingPathComponent("badge-alpha.png")))
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.route("/badge.png") { _, connection in
            try connection.respond(
                headers: [("Content-Type", "image/png"), ("Content-Encoding", "gzip")],
                body: StoredGzip.wrap(png))
        }
        let directory = try TemporaryDirectory(prefix: "content-encoding")
        let (manager, _) = try WebImage.makeManager(cacheDirectory: directory.url)
        let loaded = try await manager.image(for: server.url("/badge.png"))
        #expect(loaded.image.format == .png && loaded.image.width == 160)
        #expect(server.requestLog.last?.headers["accept-encoding"]?.contains("gzip") == true)
    }
}

/// A gzip stream of stored (uncompressed) deflate blocks: valid gzip without a compressor, enough to
/// prove the loader decodes the content coding.
enum StoredGzip {
    /// The largest stored block deflate allows.
    private static let maxBlock = 65_535

    static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        // ID1 ID2, CM=deflate, no flags, no mtime, no extra flags, OS unknown.
        var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        var start = 0
        repeat {
            let end = min(bytes.count, start + maxBlock)
            let length = UInt16(end - start)
            out.append(end == bytes.count ? 0x01 : 0x00)  // BFINAL, BTYPE=00 (stored)
            out += littleEndian(length) + littleEndian(~length)
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        out += littleEndian(crc32(bytes)) + littleEndian(UInt32(truncatingIfNeeded: bytes.count))
        return out
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian, Array.init)
    }

    /// CRC-32 (IEEE, reflected, as gzip uses), bit by bit: the inputs here are a few KB.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
