import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImagePNGCoder

/// The direct image-data path (`cpng_reader_decode_image_data`: zlib and the whole-pixel filter
/// reconstruction instead of libpng's row loop). Files are made here with every filter type, so the
/// decoded pixels can be held to the pixels that were written, and to libpng's own decode.
@Suite("PNG direct image data")
struct PNGDirectImageDataTests {
    /// A deterministic image with gradients and noise, so that every filter has work to do.
    static func pixels(width: Int, height: Int, channels: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    let smooth = (x * 37 + y * 23 + c * 71) & 0xFF
                    bytes[(y * width + x) * channels + c] = UInt8(truncatingIfNeeded: smooth + Int(state % 9) * 29)
                }
            }
        }
        return bytes
    }

    /// The specification's Paeth predictor.
    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// The zlib-ready bytes of `pixels`: each row its filter byte (`filter(y)`) and the filtered row.
    static func filteredRows(_ pixels: [UInt8], width: Int, height: Int, bpp: Int, filter: (Int) -> UInt8) -> [UInt8] {
        let rowBytes = width * bpp
        var out: [UInt8] = []
        for y in 0..<height {
            let type = filter(y)
            out.append(type)
            for i in 0..<rowBytes {
                let x = Int(pixels[y * rowBytes + i])
                let a = i >= bpp ? Int(pixels[y * rowBytes + i - bpp]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
                let c = y > 0 && i >= bpp ? Int(pixels[(y - 1) * rowBytes + i - bpp]) : 0
                let predicted =
                    switch type {
                    case 1: a
                    case 2: b
                    case 3: (a + b) >> 1
                    case 4: paeth(a, b, c)
                    default: 0
                    }
                out.append(UInt8(truncatingIfNeeded: x - predicted))
            }
        }
        return out
    }

    /// A PNG of `pixels` with the image data split over `pieces` IDAT chunks (an empty one in between
    /// when there are several), and `chunksAfterImage` before IEND.
    static func png(
        _ pixels: [UInt8], width: Int, height: Int, colorType: UInt8, pieces: Int = 1,
        filter: (Int) -> UInt8, chunksAfterImage: [UInt8] = []
    ) -> [UInt8] {
        let bpp = colorType == 0 ? 1 : colorType == 2 ? 3 : 4
        let stream = FixedHuffmanDeflate.zlib(
            filteredRows(pixels, width: width, height: height, bpp: bpp, filter: filter))
        var bytes = PNGChunk.signature
        bytes += PNGChunk.make(
            "IHDR", PNGChunk.bigEndian(UInt32(width)) + PNGChunk.bigEndian(UInt32(height)) + [8, colorType, 0, 0, 0])
        let size = (stream.count + pieces - 1) / pieces
        for (index, start) in stride(from: 0, to: stream.count, by: size).enumerated() {
            bytes += PNGChunk.make("IDAT", Array(stream[start..<min(stream.count, start + size)]))
            if pieces > 1 && index == 0 { bytes += PNGChunk.make("IDAT", []) }
        }
        return bytes + chunksAfterImage + PNGChunk.make("IEND", [])
    }

    /// How the direct path ends on `data` (fed up to its first IDAT as a whole decode does).
    static func directOutcome(
        _ data: Data, options: DecodeOptions = DecodeOptions()
    ) throws -> PNGIncrementalDecoder.DirectImageData {
        let decoder = PNGIncrementalDecoder(options: options)
        let split = PNGIncrementalDecoder.endOfFirstIDATHeader(in: data) ?? data.count
        try decoder.feed(data.prefix(split))
        // The reader keeps its own image buffer here (a whole decode lends one instead).
        return try decoder.decodeImageDataDirectly(data, split: split)
    }

    /// The decode through libpng's row loop only.
    static func libpngDecode(_ data: Data, options: DecodeOptions = DecodeOptions()) throws -> Image {
        try PNGIncrementalDecoder(options: options, directImageData: false).decodeComplete(data)
    }

    @Test("every filter, pixel size and width decodes to the pixels written, through the direct path")
    func everyFilterRoundTrips() throws {
        for (colorType, channels, layout) in [(UInt8(0), 1, PixelLayout.gray8), (2, 3, .rgb8), (6, 4, .rgba8)] {
            for width in [1, 2, 3, 5, 16, 17, 33] {
                let height = 6
                let pixels = Self.pixels(width: width, height: height, channels: channels, seed: UInt64(width))
                let filters: [(Int) -> UInt8] = [
                    { _ in 0 }, { _ in 1 }, { _ in 2 }, { _ in 3 }, { _ in 4 }, { UInt8($0 % 5) },
                ]
                for (index, filter) in filters.enumerated() {
                    let data = Data(
                        Self.png(
                            pixels, width: width, height: height, colorType: colorType, pieces: 1 + index % 3,
                            filter: filter))
                    #expect(try Self.directOutcome(data) == .decoded)
                    let image = try PNGCoder().decode(data, options: DecodeOptions())
                    #expect(image.pixels.layout == layout)
                    #expect(image.pixels.bytes == pixels, "color type \(colorType), width \(width), filters \(index)")
                    #expect(try Self.libpngDecode(data).pixels.bytes == pixels)
                    #expect(!image.isIncomplete)
                }
            }
        }
    }

    @Test("a streamed thumbnail through the direct path matches libpng's")
    func streamedThumbnailsMatch() throws {
        for (colorType, channels) in [(UInt8(0), 1), (2, 3), (6, 4)] {
            let pixels = Self.pixels(width: 120, height: 90, channels: channels, seed: 7)
            let data = Data(
                Self.png(pixels, width: 120, height: 90, colorType: colorType, pieces: 3, filter: { UInt8($0 % 5) }))
            let options = DecodeOptions(thumbnailPixelSize: PixelSize(40))
            #expect(try Self.directOutcome(data, options: options) == .decoded)
            let direct = try PNGCoder().decode(data, options: options)
            let libpng = try Self.libpngDecode(data, options: options)
            #expect(direct.pixels.width == 40)
            #expect(direct.pixels == libpng.pixels)
        }
    }

    @Test("files that need libpng's transforms are declined untouched")
    func transformedFilesAreDeclined() throws {
        let pixels = Self.pixels(width: 8, height: 4, channels: 4, seed: 3)
        var withTRNS = Self.png(
            pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element), width: 8, height: 4, colorType: 2,
            filter: { _ in 4 })
        // tRNS goes before the image data: after IHDR (8 + 25 bytes).
        withTRNS.insert(contentsOf: PNGChunk.make("tRNS", [0, 1, 0, 2, 0, 3]), at: 33)
        #expect(try Self.directOutcome(Data(withTRNS)) == .declined)
        let image = try PNGCoder().decode(Data(withTRNS), options: DecodeOptions())
        #expect(image.pixels == (try Self.libpngDecode(Data(withTRNS))).pixels)
        #expect(image.pixels.layout == .rgba8)
    }

    /// Damaged or unusual image data: the direct path gives up, and the whole decode is libpng's.
    @Test("surprises fall back to libpng with its exact outcome")
    func surprisesFallBackToLibpng() throws {
        let pixels = Self.pixels(width: 24, height: 12, channels: 4, seed: 11)
        let good = Self.png(pixels, width: 24, height: 12, colorType: 6, pieces: 2, filter: { UInt8($0 % 5) })
        let firstIDAT = PNGIncrementalDecoder.endOfFirstIDATHeader(in: Data(good))!
        var badCRC = good
        badCRC[firstIDAT + 3] ^= 0x40
        var badFilter = good
        let stream = FixedHuffmanDeflate.zlib(
            [7] + Array(Self.filteredRows(pixels, width: 24, height: 12, bpp: 4, filter: { _ in 0 }).dropFirst()))
        badFilter =
            PNGChunk.signature + PNGChunk.header(width: 24, height: 12) + PNGChunk.make("IDAT", stream)
            + PNGChunk.make("IEND", [])
        let textAfter = Self.png(
            pixels, width: 24, height: 12, colorType: 6, filter: { _ in 4 },
            chunksAfterImage: PNGChunk.make("tEXt", Array("Comment\u{0}after the image".utf8)))
        let trailing = good + Array("trailing".utf8)
        let truncated = Array(good.prefix(firstIDAT + 100))
        let shortStream = FixedHuffmanDeflate.zlib(
            Self.filteredRows(pixels, width: 24, height: 8, bpp: 4, filter: { UInt8($0 % 5) }))
        let short =
            PNGChunk.signature + PNGChunk.header(width: 24, height: 12) + PNGChunk.make("IDAT", shortStream)
            + PNGChunk.make("IEND", [])
        // Surprises inside the image data start over; files whose chunks after it are not a plain IEND are
        // left to libpng from the start.
        let cases: [(String, [UInt8], PNGIncrementalDecoder.DirectImageData)] = [
            ("bad IDAT CRC", badCRC, .retry), ("filter type 7", badFilter, .retry),
            ("short deflate stream", short, .retry), ("tEXt after IDAT", textAfter, .declined),
            ("bytes after IEND", trailing, .declined), ("truncated", truncated, .declined),
            (
                "extra deflate data",
                [UInt8](HostileFiles.pngWithExtraCompressedData(size: PixelSize(width: 9, height: 5))), .retry
            ),
            (
                "late IDAT and garbage",
                [UInt8](HostileFiles.pngWithIDATAfterImageAndTrailingData(size: PixelSize(width: 9, height: 5))),
                .declined
            ),
        ]
        for (name, bytes, outcome) in cases {
            let data = Data(bytes)
            #expect(try Self.directOutcome(data) == outcome, "\(name)")
            for options in [
                DecodeOptions(), DecodeOptions(allowPartialImage: true),
                DecodeOptions(thumbnailPixelSize: PixelSize(6)),
            ] {
                let direct = Result { try PNGCoder().decode(data, options: options) }
                let libpng = Result { try Self.libpngDecode(data, options: options) }
                switch (direct, libpng) {
                case (.success(let a), .success(let b)):
                    #expect(a.pixels == b.pixels && a.isIncomplete == b.isIncomplete, "\(name)")
                case (.failure(let a), .failure(let b)):
                    #expect("\(a)" == "\(b)", "\(name)")
                default:
                    Issue.record("\(name): direct \(direct), libpng \(libpng)")
                }
            }
        }
        // The undamaged file itself takes the direct path.
        #expect(try Self.directOutcome(Data(good)) == .decoded)
        #expect(try PNGCoder().decode(Data(good), options: DecodeOptions()).pixels.bytes == pixels)
    }
}
