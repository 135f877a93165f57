import Foundation
import Testing
import WebImageBMPCoder
import WebImageCore
import WebImageICOCoder
import WebImagePNGCoder
import WebImageTestSupport
import WebImageTesting

/// Every fixture of `scripts/reference/tiff-bmp-ico-reference.py` against Pillow's pixels (see `reference.tsv`).
@Suite("ICO decodes its largest entry as Pillow does")
struct ICOReferenceTests {
    static let fixtures = ReferenceFixture.all(in: "ICOCoderTests")

    @Test func theFixturesAreThere() {
        #expect(Self.fixtures.count >= 3)
    }

    @Test(arguments: fixtures)
    func matchesTheReference(_ fixture: ReferenceFixture) throws {
        let data = try fixture.data()
        #expect(ImageFormat.detect(data) == .ico)
        let image = try ICOCoder().decode(data, options: DecodeOptions())
        #expect(image.format == .ico)
        let reference = try PNGCoder().decode(try fixture.referencePNG(), options: DecodeOptions())
        let mismatch = fixture.mismatch(decoded: image.pixels, reference: reference.pixels)
        #expect(mismatch == nil, "\(mismatch ?? "") — \(fixture.note)")
    }
}

/// An icon directory around the given entries (each: directory width/height bytes and the payload).
func handMadeICO(
    _ entries: [(width: UInt8, height: UInt8, bits: UInt16, payload: Data)], type: UInt16 = 1,
    declaredCount: UInt16? = nil
) -> Data {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }
    var out = le16(0) + le16(type) + le16(declaredCount ?? UInt16(entries.count))
    var offset = 6 + 16 * entries.count
    for entry in entries {
        out += [entry.width, entry.height, 0, 0] + le16(1) + le16(entry.bits)
        out += le32(UInt32(entry.payload.count)) + le32(UInt32(offset))
        offset += entry.payload.count
    }
    return Data(out) + entries.reduce(Data()) { $0 + $1.payload }
}

@Suite("ICO entries, encoding and hostile input")
struct ICOCoderTests {
    func png(_ width: Int, _ height: Int, layout: PixelLayout = .rgba8) throws -> Data {
        try PNGCoder().encode(
            Image(pixels: SyntheticPicture.make(width: width, height: height, layout: layout)),
            as: .png, options: EncodeOptions())
    }

    /// A BMP entry: the BMP coder's file without its 14-byte header, the height doubled, an AND mask after.
    func bmpEntry(_ width: Int, _ height: Int) throws -> Data {
        let file = try BMPCoder().encode(
            Image(pixels: SyntheticPicture.make(width: width, height: height)),
            as: .bmp, options: EncodeOptions())
        var dib = [UInt8](file.dropFirst(14))
        let doubled = UInt32(height * 2)
        dib[8] = UInt8(doubled & 0xFF); dib[9] = UInt8(doubled >> 8 & 0xFF)
        let maskRow = (width + 31) / 32 * 4
        return Data(dib + [UInt8](repeating: 0, count: maskRow * height))
    }

    @Test func theCoderContractHolds() throws {
        let coder = ICOCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .ico)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func theLargestEntryWinsWhateverTheDirectorySays() throws {
        // The directory claims 16x16 for the 64x40 PNG and 255x255 for a 24x24 BMP entry.
        let data = handMadeICO([
            (255, 255, 24, try bmpEntry(24, 24)), (16, 16, 32, try png(64, 40)), (32, 32, 32, try png(32, 32)),
        ])
        let image = try ICOCoder().decode(data, options: DecodeOptions())
        #expect((image.width, image.height) == (64, 40))
        #expect(image.format == .ico)
    }

    @Test func aBMPEntryDecodesWithItsRealHeight() throws {
        let image = try ICOCoder().decode(handMadeICO([(24, 24, 24, try bmpEntry(24, 24))]), options: DecodeOptions())
        #expect((image.width, image.height) == (24, 24))
        #expect(image.pixels.packed().bytes == SyntheticPicture.make(width: 24, height: 24).bytes)
    }

    @Test func cursorsDecodeToo() throws {
        let image = try ICOCoder().decode(
            handMadeICO([(32, 32, 32, try png(32, 32))], type: 2), options: DecodeOptions())
        #expect((image.width, image.height) == (32, 32))
    }

    @Test(arguments: [PixelLayout.rgb8, .rgba8])
    func encodingWritesOnePNGEntryThatRoundTrips(_ layout: PixelLayout) throws {
        let pixels = SyntheticPicture.make(width: 48, height: 32, layout: layout)
        let data = try ICOCoder().encode(Image(pixels: pixels), as: .ico, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .ico)
        #expect(Array(data.prefix(8)) == [0, 0, 1, 0, 1, 0, 48, 32])
        let decoded = try ICOCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.packed().bytes == pixels.bytes)
    }

    @Test func a256PixelSideIsWrittenAsZero() throws {
        let data = try ICOCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 256, height: 8)), as: .ico, options: EncodeOptions())
        #expect(data[data.startIndex + 6] == 0)
        #expect(try ICOCoder().decode(data, options: DecodeOptions()).width == 256)
    }

    @Test func imagesLargerThan256AreRefusedUnlessFitted() throws {
        let image = Image(pixels: SyntheticPicture.make(width: 300, height: 100))
        #expect(throws: ImageError.self) { try ICOCoder().encode(image, as: .ico, options: EncodeOptions()) }
        var options = EncodeOptions()
        options.maxPixelSize = PixelSize(width: 256, height: 256)
        let data = try ICOCoder().encode(image, as: .ico, options: options)
        #expect(try ICOCoder().decode(data, options: DecodeOptions()).width == 256)
    }

    @Test func aDirectoryPointingOutsideTheFileIsBadData() throws {
        var data = [UInt8](handMadeICO([(32, 32, 32, try png(32, 32))]))
        data[18] = 0xFF; data[19] = 0xFF; data[20] = 0xFF; data[21] = 0x7F  // offset far past the end
        #expect(throws: ImageError.self) { try ICOCoder().decode(Data(data), options: DecodeOptions()) }
        #expect(throws: ImageError.self) { try ICOCoder().decode(Data([0, 0, 1, 0, 0, 0]), options: DecodeOptions()) }
        #expect(throws: ImageError.self) { try ICOCoder().decode(Data([0, 0, 1, 0]), options: DecodeOptions()) }
    }

    @Test func aDeclaredCountBeyondTheFileReadsOnlyTheEntriesTheFileHolds() throws {
        // 65,535 entries declared; the bytes after the one real entry read as entries pointing nowhere useful.
        let data = handMadeICO([(32, 32, 32, try png(32, 32))], declaredCount: 65535)
        let image = try ICOCoder().decode(data, options: DecodeOptions())
        #expect((image.width, image.height) == (32, 32))
    }

    @Test func absurdEntryDimensionsAreRefused() throws {
        var entry = [UInt8](try bmpEntry(8, 8))
        entry[4] = 0x40; entry[5] = 0x42; entry[6] = 0x0F; entry[7] = 0  // width 1,000,000
        entry[8] = 0x80; entry[9] = 0x84; entry[10] = 0x1E; entry[11] = 0  // height 2,000,000 (1,000,000 doubled)
        #expect(
            throws: ImageError.imageTooLarge(
                width: 1_000_000, height: 1_000_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try ICOCoder().decode(handMadeICO([(0, 0, 24, Data(entry))]), options: DecodeOptions())
        }
    }

    @Test func truncatedAndBitFlippedCopiesEndInAnImageOrATypedError() throws {
        for fixture in ReferenceFixture.all(in: "ICOCoderTests") {
            let data = try fixture.data()
            for copy in DamagedCopies.truncations(of: data) + DamagedCopies.bitFlips(of: data, copies: 150) {
                do {
                    let image = try ICOCoder().decode(copy, options: DecodeOptions(maxPixelCount: 1_000_000))
                    #expect(image.width * image.height <= 1_000_000)
                } catch {
                    #expect(!error.description.isEmpty)
                }
            }
        }
    }
}

/// The hostile ICO of `HostileFiles` (also measured by scripts/bench/hostile-bench).
@Suite("ICO hostile files stay within bounds")
struct ICOHostileFilesTests {
    @Test func aDirectoryOf65535EntriesDecodesOnePicture() throws {
        let image = try ICOCoder().decode(HostileFiles.manyEntriesICO(entries: 65_535), options: DecodeOptions())
        #expect((image.width, image.height) == (256, 256))
        // stored B, G, R, A; bottom-up, so row 0 is stored last
        #expect(image.pixels.rgba(x: 7, y: 0) == (0, 255, 7, 255))
    }
}
