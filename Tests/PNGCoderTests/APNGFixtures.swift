import Foundation
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Builds APNG files chunk by chunk, with any `fcTL` values, so tests can make both the files the
/// spec describes and the broken ones it forbids. Frame data comes from libpng (``PNGCoder``).
struct APNGFixture {
    /// One frame: RGBA8 pixels placed at (`x`, `y`) with the given `fcTL` fields.
    struct Frame {
        var pixels: PixelBuffer
        var x = 0, y = 0
        var delayNumerator: UInt16 = 1, delayDenominator: UInt16 = 10
        var dispose: UInt8 = 0, blend: UInt8 = 0
    }

    var width: Int
    var height: Int
    var plays: UInt32 = 0
    var frames: [Frame]
    /// A default image that is not part of the animation (written as IDAT before the first fcTL).
    var hiddenDefaultImage: PixelBuffer?

    /// The file's chunks (type and data), in order, for tests that want to break them.
    func chunks() throws -> [(type: String, data: [UInt8])] {
        var chunks: [(type: String, data: [UInt8])] = []
        chunks.append(
            ("IHDR", PNGChunk.bigEndian(UInt32(width)) + PNGChunk.bigEndian(UInt32(height)) + [8, 6, 0, 0, 0]))
        chunks.append(("acTL", PNGChunk.bigEndian(UInt32(frames.count)) + PNGChunk.bigEndian(plays)))
        var sequence: UInt32 = 0
        if let hidden = hiddenDefaultImage {
            for data in try Self.imageData(hidden) { chunks.append(("IDAT", data)) }
        }
        for (index, frame) in frames.enumerated() {
            chunks.append(("fcTL", Self.frameControl(sequence: sequence, frame)))
            sequence += 1
            for data in try Self.imageData(frame.pixels) {
                if index == 0 && hiddenDefaultImage == nil {
                    chunks.append(("IDAT", data))
                } else {
                    chunks.append(("fdAT", PNGChunk.bigEndian(sequence) + data))
                    sequence += 1
                }
            }
        }
        chunks.append(("IEND", []))
        return chunks
    }

    func data() throws -> Data { Self.assemble(try chunks()) }

    static func assemble(_ chunks: [(type: String, data: [UInt8])]) -> Data {
        Data(PNGChunk.signature + chunks.flatMap { PNGChunk.make($0.type, $0.data) })
    }

    static func frameControl(sequence: UInt32, _ frame: Frame) -> [UInt8] {
        PNGChunk.bigEndian(sequence) + PNGChunk.bigEndian(UInt32(frame.pixels.width))
            + PNGChunk.bigEndian(UInt32(frame.pixels.height)) + PNGChunk.bigEndian(UInt32(frame.x))
            + PNGChunk.bigEndian(UInt32(frame.y))
            + [
                UInt8(frame.delayNumerator >> 8), UInt8(frame.delayNumerator & 0xFF),
                UInt8(frame.delayDenominator >> 8), UInt8(frame.delayDenominator & 0xFF), frame.dispose, frame.blend,
            ]
    }

    /// The IDAT payloads libpng writes for `pixels` (as RGBA8, so every frame matches IHDR).
    static func imageData(_ pixels: PixelBuffer) throws -> [[UInt8]] {
        let png = try PNGCoder().encode(Image(pixels: pixels.converted(to: .rgba8)), as: .png, options: EncodeOptions())
        return parseChunks(png).filter { $0.type == "IDAT" }.map(\.data)
    }

    /// The chunks of a well-formed PNG file.
    static func parseChunks(_ data: Data) -> [(type: String, data: [UInt8])] {
        let bytes = [UInt8](data)
        var chunks: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            guard offset + 12 + length <= bytes.count else { break }
            chunks.append(
                (
                    String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self),
                    Array(bytes[(offset + 8)..<(offset + 8 + length)])
                ))
            offset += 12 + length
        }
        return chunks
    }

    /// A `width` x `height` RGBA8 buffer of one color.
    static func solid(_ width: Int, _ height: Int, _ color: [UInt8]) -> PixelBuffer {
        PixelBuffer(
            width: width, height: height, layout: .rgba8,
            bytes: Array([[UInt8]](repeating: color, count: width * height).joined()))
    }

    /// A small animation exercising every dispose and blend op on sub-rectangles (canvas 8x6).
    static let mixedOps = APNGFixture(
        width: 8, height: 6, plays: 2,
        frames: [
            Frame(pixels: TestPictures.gradient(width: 8, height: 6, layout: .rgba8), dispose: 0, blend: 0),
            Frame(pixels: solid(3, 2, [0, 0, 255, 128]), x: 1, y: 1, dispose: 2, blend: 1),
            Frame(pixels: solid(4, 3, [0, 255, 0, 200]), x: 4, y: 3, dispose: 1, blend: 1),
            Frame(pixels: TestPictures.gradient(width: 5, height: 4, layout: .rgba8), x: 2, y: 0, dispose: 0, blend: 1),
            Frame(pixels: solid(2, 2, [255, 0, 0, 0]), x: 0, y: 4, dispose: 2, blend: 0),
            Frame(pixels: solid(8, 6, [10, 20, 30, 60]), dispose: 1, blend: 1),
            Frame(pixels: solid(1, 1, [255, 255, 255, 255]), x: 7, y: 5, dispose: 0, blend: 0),
        ])
}
