import Foundation
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// A WebP file as its list of RIFF chunks, to build and hand-edit fixtures (metadata chunks, broken
/// frame offsets) without any tool outside the test.
struct WebPChunkList {
    struct Chunk {
        var fourcc: String
        var payload: [UInt8]
    }

    var chunks: [Chunk]

    init(_ chunks: [Chunk]) { self.chunks = chunks }

    /// Splits a well-formed WebP file (as our encoder writes it) into its chunks.
    init(_ data: Data) {
        let bytes = [UInt8](data)
        var chunks: [Chunk] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let fourcc = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Self.readLE(bytes, at: offset + 4, count: 4)
            chunks.append(Chunk(fourcc: fourcc, payload: Array(bytes[offset + 8..<offset + 8 + size])))
            offset += 8 + size + (size & 1)
        }
        self.chunks = chunks
    }

    /// The file: RIFF header, then every chunk with its size and padding byte.
    var data: Data {
        let body = Array("WEBP".utf8) + chunkBytes
        return Data(Array("RIFF".utf8) + Self.le(body.count, count: 4) + body)
    }

    /// The chunks alone, each with its size and padding byte (what an ANMF chunk holds after its header).
    var chunkBytes: [UInt8] {
        var bytes: [UInt8] = []
        for chunk in chunks {
            bytes += Array(chunk.fourcc.utf8) + Self.le(chunk.payload.count, count: 4) + chunk.payload
            if chunk.payload.count & 1 == 1 { bytes.append(0) }
        }
        return bytes
    }

    /// A VP8X chunk for a `width` x `height` canvas with the given flag bits.
    static func vp8x(width: Int, height: Int, flags: UInt8) -> Chunk {
        Chunk(fourcc: "VP8X", payload: [flags, 0, 0, 0] + le(width - 1, count: 3) + le(height - 1, count: 3))
    }

    /// VP8X flag bits (WebP container spec).
    static let iccFlag: UInt8 = 0x20, alphaFlag: UInt8 = 0x10, exifFlag: UInt8 = 0x08, xmpFlag: UInt8 = 0x04

    static func le(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func readLE(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
}

/// Images made in code for the WebP tests.
enum WebPTestImages {
    /// A big-endian TIFF block with one IFD entry: Orientation = `orientation`.
    static func exif(orientation: UInt16) -> [UInt8] { TestEXIF.tiff(orientation: orientation) }

    /// Deterministic noise, which compresses badly: big files for the incremental tests.
    static func noise(width: Int, height: Int, layout: PixelLayout, seed: UInt64 = 1) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, layout: layout)
        var state = seed
        for i in 0..<pixels.bytes.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels.bytes[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return pixels
    }

    /// An animation of `count` frames, `width` x `height`: a bar that moves, on a transparent background.
    static func animation(frames count: Int, width: Int = 24, height: Int = 16) -> Image {
        let frames = (0..<count).map { i -> ImageFrame in
            var pixels = PixelBuffer(width: width, height: height, layout: .rgba8)
            for y in 0..<height {
                for x in 0..<width where (x + i * 3) % width < width / 3 {
                    let o = (y * width + x) * 4
                    pixels.bytes[o] = UInt8(truncatingIfNeeded: i * 20); pixels.bytes[o + 1] = 200;
                    pixels.bytes[o + 3] = 255
                }
            }
            return ImageFrame(pixels: pixels, duration: .milliseconds(50 * (i + 1)))
        }
        return Image(frames: frames, loopCount: 3)
    }
}
