import Foundation
import Testing
import WebImageBMPCoder
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Every fixture of `scripts/reference/tiff-bmp-ico-reference.py` against Pillow's pixels (see `reference.tsv`
/// for each file's variant and tolerance).
@Suite("BMP decodes as Pillow does")
struct BMPReferenceTests {
    static let fixtures = ReferenceFixture.all(in: "BMPCoderTests")

    @Test func theFixturesAreThere() {
        #expect(Self.fixtures.count >= 14)
    }

    @Test(arguments: fixtures)
    func matchesTheReference(_ fixture: ReferenceFixture) throws {
        let data = try fixture.data()
        #expect(ImageFormat.detect(data) == .bmp)
        if fixture.comparison == .error {
            #expect(throws: ImageError.unsupportedFormat(.bmp)) {
                try BMPCoder().decode(data, options: DecodeOptions())
            }
            return
        }
        let image = try BMPCoder().decode(data, options: DecodeOptions())
        #expect(image.format == .bmp)
        let reference = try PNGCoder().decode(try fixture.referencePNG(), options: DecodeOptions())
        let mismatch = fixture.mismatch(decoded: image.pixels, reference: reference.pixels)
        #expect(mismatch == nil, "\(mismatch ?? "") — \(fixture.note)")
    }
}

@Suite("BMP alpha, layouts and encoding")
struct BMPCoderTests {
    func fixture(_ name: String) throws -> Data {
        try #require(ReferenceFixture.all(in: "BMPCoderTests").first { $0.file == name }).data()
    }

    @Test func theFourthByteOf32BitPixelsIsAlphaAsBrowsersReadIt() throws {
        let image = try BMPCoder().decode(try fixture("bgra32-bi-rgb.bmp"), options: DecodeOptions())
        #expect(image.pixels.layout == .rgba8)
        #expect(image.pixels.rgba(x: 0, y: 0).a == 0)
        #expect(image.pixels.rgba(x: 36, y: 0).a == 255)
    }

    @Test func aZeroFourthByteEverywhereMeansOpaque() throws {
        let pixels = SyntheticPicture.make(width: 9, height: 5, layout: .rgb8)
        var rgba = pixels.converted(to: .rgba8)
        for i in stride(from: 3, to: rgba.bytes.count, by: 4) { rgba.bytes[i] = 0 }
        var data = [UInt8](try BMPCoder().encode(Image(pixels: rgba), as: .bmp, options: EncodeOptions()))
        // Turn the V4 BI_BITFIELDS file into BI_RGB: compression field at 14 + 16.
        data[30] = 0
        let image = try BMPCoder().decode(Data(data), options: DecodeOptions())
        #expect(image.pixels.layout == .rgb8)
        #expect(image.pixels.packed().bytes == pixels.bytes)
    }

    @Test func opaqueFilesDecodeToRGBAndPalettesToo() throws {
        #expect(try BMPCoder().decode(try fixture("rgb24.bmp"), options: DecodeOptions()).pixels.layout == .rgb8)
        #expect(try BMPCoder().decode(try fixture("palette8.bmp"), options: DecodeOptions()).pixels.layout == .rgb8)
        #expect(
            try BMPCoder().decode(try fixture("bitfields32-alpha-v4.bmp"), options: DecodeOptions()).pixels.layout
                == .rgba8)
    }

    @Test(arguments: [PixelLayout.gray8, .rgb8, .rgba8])
    func losslessRoundTrip(_ layout: PixelLayout) throws {
        let pixels = SyntheticPicture.make(width: 33, height: 17, layout: layout)
        let data = try BMPCoder().encode(Image(pixels: pixels), as: .bmp, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .bmp)
        let decoded = try BMPCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.packed().bytes == pixels.converted(to: layout == .gray8 ? .rgb8 : layout).packed().bytes)
    }

    @Test func aThumbnailIsHonoured() throws {
        let data = try BMPCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 120, height: 60)), as: .bmp, options: EncodeOptions())
        let image = try BMPCoder().decode(
            data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30)))
        #expect((image.width, image.height) == (30, 15))
    }

    @Test func encodingFitsMaxPixelSize() throws {
        var options = EncodeOptions()
        options.maxPixelSize = PixelSize(width: 10, height: 10)
        let data = try BMPCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 40, height: 20)), as: .bmp, options: options)
        let image = try BMPCoder().decode(data, options: DecodeOptions())
        #expect((image.width, image.height) == (10, 5))
    }
}
