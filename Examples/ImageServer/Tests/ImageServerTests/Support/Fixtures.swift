import Foundation
import ImageServer
import WebImage

/// Source images made in code with the framework's encoders, and hostile files built byte by byte.
enum Fixtures {
    static let photoSize = (width: 64, height: 48)

    /// An opaque RGB gradient.
    static func photoPixels() -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<photoSize.height {
            for x in 0..<photoSize.width { bytes += [UInt8(x * 4), UInt8(y * 5), 128] }
        }
        return PixelBuffer(width: photoSize.width, height: photoSize.height, layout: .rgb8, bytes: bytes)
    }

    /// `side` x `side` RGB pixels of noise (xorshift): incompressible, so its PNG is as large as its pixels.
    static func noisePixels(side: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: side * side * 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buffer[index] = UInt8(truncatingIfNeeded: state)
            }
        }
        return PixelBuffer(width: side, height: side, layout: .rgb8, bytes: bytes)
    }

    /// A 32x32 RGBA image, half transparent.
    static func alphaPixels() -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<32 {
            for x in 0..<32 { bytes += [255, UInt8(x * 8), 0, y < 16 ? 255 : 0] }
        }
        return PixelBuffer(width: 32, height: 32, layout: .rgba8, bytes: bytes)
    }

    static func encoded(_ pixels: PixelBuffer, as format: ImageFormat) -> Data {
        WebImage.registerBuiltInCoders()
        return try! ImageCodersManager.shared.encode(Image(pixels: pixels), as: format, options: EncodeOptions())
    }

    /// A three-frame animated GIF, 24x24.
    static func animatedGIF() -> Data {
        WebImage.registerBuiltInCoders()
        let frames = [UInt8(0), 120, 240].map { red in
            ImageFrame(
                pixels: PixelBuffer(
                    width: 24, height: 24, layout: .rgba8,
                    bytes: [UInt8]((0..<(24 * 24)).flatMap { _ in [red, 60, 90, 255] })),
                duration: .milliseconds(100))
        }
        return try! ImageCodersManager.shared.encode(
            Image(frames: frames, format: .gif), as: .gif, options: EncodeOptions())
    }

    /// A PNG whose header declares 20,000 x 20,000 pixels (400 MP) with almost no data: a pixel bomb the
    /// decoder must refuse from the header.
    static func pixelBombPNG() -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(contentsOf: bigEndian(20_000) + bigEndian(20_000))
        header.append(contentsOf: [8, 0, 0, 0, 0])  // 8-bit gray, deflate, no filter method change, no interlace
        png.append(chunk("IHDR", header))
        png.append(chunk("IDAT", Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])))
        png.append(chunk("IEND", Data()))
        return png
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return Data(bigEndian(UInt32(body.count))) + typed + Data(bigEndian(crc32(typed)))
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The origin's files for most tests.
    static let standardFiles: [String: StaticSourceServer.File] = [
        "/photo.jpg": .init(data: encoded(photoPixels(), as: .jpeg), contentType: "image/jpeg"),
        "/alpha.png": .init(data: encoded(alphaPixels(), as: .png), contentType: "image/png"),
        "/anim.gif": .init(data: animatedGIF(), contentType: "image/gif"),
        "/bomb.png": .init(data: pixelBombPNG(), contentType: "image/png"),
        "/not-an-image.txt": .init(data: Data("hello".utf8), contentType: "text/plain"),
        "/hang.jpg": .init(
            data: encoded(photoPixels(), as: .jpeg), contentType: "image/jpeg", delay: .seconds(hangSeconds)),
    ]

    /// How long `/hang.jpg` keeps the server waiting: far past any deadline a test sets.
    static let hangSeconds = 60

    /// Decodes a reply body with the framework's coders.
    static func decode(_ data: Data) throws -> Image {
        WebImage.registerBuiltInCoders()
        return try ImageCodersManager.shared.decode(data, options: DecodeOptions())
    }
}
