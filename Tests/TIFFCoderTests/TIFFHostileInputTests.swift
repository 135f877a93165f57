import Foundation
import Testing
import WebImageCore
import WebImageTIFFCoder
import WebImageTestSupport

/// A little-endian TIFF written field by field, for headers no encoder writes.
struct HandMadeTIFF {
    var entries: [(tag: UInt16, type: UInt16, values: [UInt32])] = []
    var pixelData: [UInt8] = []

    /// A one-strip image of `samples` x `bits` whose strip holds `pixelData`.
    static func strip(
        width: UInt32, height: UInt32, samples: UInt32 = 3, bits: UInt32 = 8, photometric: UInt32 = 2,
        rowsPerStrip: UInt32? = nil, stripBytes: UInt32? = nil, pixelData: [UInt8] = []
    ) -> HandMadeTIFF {
        var tiff = HandMadeTIFF(pixelData: pixelData)
        tiff.entries = [
            (256, 4, [width]), (257, 4, [height]), (258, 3, Array(repeating: bits, count: Int(samples))),
            (259, 3, [1]), (262, 3, [photometric]), (273, 4, [0]), (277, 3, [samples]),
            (278, 4, [rowsPerStrip ?? height]), (279, 4, [stripBytes ?? UInt32(pixelData.count)]),
        ]
        return tiff
    }

    /// The file: header, pixel data, then the directory (out-of-line values after it). StripOffsets
    /// (273) is the pixel data's offset unless `stripOffsetsAsGiven` keeps the entry's values.
    func bytes(stripOffsetsAsGiven: Bool = false) -> Data {
        var out: [UInt8] = [0x49, 0x49, 42, 0]
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        }
        let pixelOffset = UInt32(8)
        let ifdOffset = UInt32(8 + pixelData.count + (pixelData.count & 1))
        out += u32(ifdOffset) + pixelData
        if pixelData.count & 1 == 1 { out.append(0) }
        let sorted = entries.sorted { $0.tag < $1.tag }
        var extra: [UInt8] = []
        let extraStart = Int(ifdOffset) + 2 + sorted.count * 12 + 4
        var ifd = u16(UInt16(sorted.count))
        for entry in sorted {
            let values = entry.tag == 273 && !stripOffsetsAsGiven ? [pixelOffset] : entry.values
            let size = entry.type == 3 ? 2 : 4
            var payload: [UInt8] = []
            for v in values { payload += size == 2 ? u16(UInt16(truncatingIfNeeded: v)) : u32(v) }
            ifd += u16(entry.tag) + u16(entry.type) + u32(UInt32(values.count))
            if payload.count <= 4 {
                ifd += payload + [UInt8](repeating: 0, count: 4 - payload.count)
            } else {
                ifd += u32(UInt32(extraStart + extra.count))
                extra += payload
            }
        }
        return Data(out + ifd + u32(0) + extra)
    }
}

/// Files from strangers: every decode ends in an image or a typed error, within the budgets.
@Suite("TIFF hostile input ends in typed errors")
struct TIFFHostileInputTests {
    @Test func theHandMadeBuilderMakesAValidFile() throws {
        let pixels: [UInt8] = (0..<36).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i * 7) }
        let image = try TIFFCoder().decode(
            HandMadeTIFF.strip(width: 4, height: 3, pixelData: pixels).bytes(), options: DecodeOptions())
        #expect(image.pixels.packed().bytes == pixels)
    }

    @Test func absurdDimensionsAreRefusedFromTheDirectory() {
        let data = HandMadeTIFF.strip(width: 1_000_000, height: 1_000_000, pixelData: [1, 2, 3]).bytes()
        #expect(
            throws: ImageError.imageTooLarge(
                width: 1_000_000, height: 1_000_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try TIFFCoder().decode(data, options: DecodeOptions())
        }
    }

    @Test func thePixelLimitIsChecked() {
        let data = HandMadeTIFF.strip(width: 300, height: 200, pixelData: [UInt8](repeating: 9, count: 300 * 200 * 3))
            .bytes()
        #expect(throws: ImageError.imageTooLarge(width: 300, height: 200, limit: 50_000)) {
            try TIFFCoder().decode(data, options: DecodeOptions(maxPixelCount: 50_000))
        }
    }

    @Test func aStripLargerThanThePixelBudgetIsRefusedBeforeLibtiffAllocatesIt() {
        // 240x240 is under a 60,000-pixel limit (1 MB of libtiff allocations at most), but 16 samples of
        // 16 bits in one LZW strip (libtiff cuts only uncompressed strips itself) make a 1.8 MB strip.
        var tiff = HandMadeTIFF.strip(
            width: 240, height: 240, samples: 16, bits: 16, photometric: 1, pixelData: [0, 0])
        tiff.entries = tiff.entries.map { $0.tag == 259 ? (tag: 259, type: 3, values: [5]) : $0 }
        let data = tiff.bytes()
        do {
            _ = try TIFFCoder().decode(data, options: DecodeOptions(maxPixelCount: 60_000))
            Issue.record("decoded")
        } catch {
            guard case .decodeBudgetExceeded(.decoderMemory, _, _) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func aZeroDimensionIsBadData() {
        let data = HandMadeTIFF.strip(width: 0, height: 10, pixelData: [1, 2, 3]).bytes()
        #expect(throws: ImageError.self) { try TIFFCoder().decode(data, options: DecodeOptions()) }
    }

    @Test func aStripPastTheEndIsBadDataUnlessPartialImagesAreAllowed() throws {
        // 64 rows in strips of 8, but only the first 24 rows' bytes are in the file.
        var tiff = HandMadeTIFF.strip(
            width: 16, height: 64, rowsPerStrip: 8, pixelData: [UInt8](repeating: 200, count: 16 * 24 * 3))
        tiff.entries.removeAll { $0.tag == 273 || $0.tag == 279 }
        tiff.entries.append((273, 4, (0..<8).map { 8 + UInt32($0) * 16 * 8 * 3 }))
        tiff.entries.append((279, 4, Array(repeating: 16 * 8 * 3, count: 8)))
        let data = tiff.bytes(stripOffsetsAsGiven: true)
        #expect(throws: ImageError.self) { try TIFFCoder().decode(data, options: DecodeOptions()) }
        let partial = try TIFFCoder().decode(data, options: DecodeOptions(allowPartialImage: true))
        #expect(partial.isIncomplete)
        #expect(partial.pixels.rgba(x: 0, y: 0).r == 200)
    }

    @Test func truncatedCopiesEndInAnImageOrATypedError() throws {
        let data = try TIFFCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 40, height: 30, layout: .rgba8)),
            as: .tiff, options: EncodeOptions())
        for copy in DamagedCopies.truncations(of: data) {
            do { _ = try TIFFCoder().decode(copy, options: DecodeOptions()) } catch {
                #expect(error.description.isEmpty == false)
            }
        }
    }

    @Test(arguments: ["rgb-lzw.tif", "ycbcr-jpeg.tif", "tiled-16.tif", "bilevel-g4.tif", "palette-lzw.tif"])
    func bitFlippedCopiesEndInAnImageOrATypedError(_ name: String) throws {
        let data = try #require(ReferenceFixture.all(in: "TIFFCoderTests").first { $0.file == name }).data()
        var failures = 0
        for copy in DamagedCopies.bitFlips(of: data, copies: 300, seed: UInt64(name.count)) {
            do {
                let image = try TIFFCoder().decode(copy, options: DecodeOptions(maxPixelCount: 1_000_000))
                #expect(image.width * image.height <= 1_000_000)
            } catch { failures += 1 }
        }
        #expect(failures > 0)
    }

    @Test func aCancelledTokenStopsTheDecode() throws {
        let data = try TIFFCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 64, height: 64)), as: .tiff, options: EncodeOptions())
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try TIFFCoder().decode(data, options: DecodeOptions(cancellation: token))
        }
    }

    @Test func notATIFFIsBadData() {
        #expect(throws: ImageError.self) { try TIFFCoder().decode(Data("II*\0garbage".utf8), options: DecodeOptions()) }
        #expect(throws: ImageError.self) { try TIFFCoder().decode(Data(), options: DecodeOptions()) }
        #expect(!TIFFCoder().canDecode(Data([0x89, 0x50, 0x4E, 0x47])))
    }
}

/// The hostile TIFF of `HostileFiles` (also measured by scripts/bench/hostile-bench): bounded work, a right answer.
@Suite("TIFF hostile files stay within bounds")
struct TIFFHostileFilesTests {
    @Test func aHundredThousandOneRowStripsDecode() throws {
        let data = HostileFiles.manyStripsTIFF(width: 64, rows: 100_000)
        let image = try TIFFCoder().decode(data, options: DecodeOptions())
        #expect((image.width, image.height) == (64, 100_000))
        #expect(image.pixels.bytes[99_999 * 64 + 5] == 15)
    }

    @Test func theTimeLimitStopsThem() {
        let data = HostileFiles.manyStripsTIFF(width: 64, rows: 100_000)
        do {
            _ = try TIFFCoder().decode(data, options: DecodeOptions(timeLimit: .nanoseconds(1)))
            Issue.record("decoded")
        } catch {
            guard case .decodeBudgetExceeded(.time, _, _) = error else { Issue.record("\(error)"); return }
        }
    }
}
