import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTIFFCoder
import WebImageTestSupport

/// Every fixture of `scripts/reference/tiff-bmp-ico-reference.py` against Pillow's pixels (see `reference.tsv`
/// for each file's variant and tolerance).
@Suite("TIFF decodes as Pillow does")
struct TIFFReferenceTests {
    static let fixtures = ReferenceFixture.all(in: "TIFFCoderTests")

    @Test func theFixturesAreThere() {
        #expect(Self.fixtures.count >= 20)
    }

    @Test(arguments: fixtures)
    func matchesTheReference(_ fixture: ReferenceFixture) throws {
        let data = try fixture.data()
        #expect(ImageFormat.detect(data) == .tiff)
        if fixture.comparison == .error {
            #expect(throws: ImageError.self) { try TIFFCoder().decode(data, options: DecodeOptions()) }
            return
        }
        let image = try TIFFCoder().decode(data, options: DecodeOptions())
        #expect(image.format == .tiff)
        let reference = try PNGCoder().decode(try fixture.referencePNG(), options: DecodeOptions())
        let mismatch = fixture.mismatch(decoded: image.pixels, reference: reference.pixels)
        #expect(mismatch == nil, "\(mismatch ?? "") — \(fixture.note)")
    }
}

@Suite("TIFF pages, orientation, layouts and metadata")
struct TIFFDecodingTests {
    func fixture(_ name: String) throws -> Data {
        try #require(ReferenceFixture.all(in: "TIFFCoderTests").first { $0.file == name }).data()
    }

    @Test func floatSamplesAreAnUnsupportedFormat() throws {
        let data = try fixture("float32.tif")
        #expect(throws: ImageError.unsupportedFormat(.tiff)) { try TIFFCoder().decode(data, options: DecodeOptions()) }
    }

    @Test func theOrientationTagIsReportedAndAppliedOrKept() throws {
        let data = try fixture("orientation-6.tif")
        let upright = try TIFFCoder().decode(data, options: DecodeOptions())
        #expect(upright.orientation == .right)
        #expect((upright.width, upright.height) == (23, 37))
        #expect(upright.isOrientationApplied)
        let stored = try TIFFCoder().decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        #expect((stored.width, stored.height) == (37, 23))
        #expect(!stored.isOrientationApplied)
    }

    @Test func aThumbnailFitsTheUprightImage() throws {
        let image = try TIFFCoder().decode(
            try fixture("orientation-6.tif"),
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(image.width <= 10 && image.height <= 10)
        #expect(image.height > image.width)
    }

    @Test func theFirstPageOfAMultipageFileIsDecoded() throws {
        let image = try TIFFCoder().decode(try fixture("multipage.tif"), options: DecodeOptions())
        #expect((image.width, image.height) == (37, 23))
        #expect(!image.isAnimated)
    }

    @Test func layoutsAreTheCheapestThatKeepTheInformation() throws {
        #expect(
            try TIFFCoder().decode(try fixture("gray-deflate.tif"), options: DecodeOptions()).pixels.layout == .gray8)
        #expect(try TIFFCoder().decode(try fixture("rgb-lzw.tif"), options: DecodeOptions()).pixels.layout == .rgb8)
        #expect(try TIFFCoder().decode(try fixture("rgba-lzw.tif"), options: DecodeOptions()).pixels.layout == .rgba8)
        #expect(try TIFFCoder().decode(try fixture("palette-lzw.tif"), options: DecodeOptions()).pixels.layout == .rgb8)
    }

    @Test func theICCProfileIsKept() throws {
        let image = try TIFFCoder().decode(try fixture("rgb-deflate-icc.tif"), options: DecodeOptions())
        let profile = try #require(image.metadata.iccProfile)
        #expect(profile.count == 588)
        #expect(profile[profile.startIndex + 36..<profile.startIndex + 40] == Data("acsp".utf8))
    }
}

@Suite("TIFF encoding round trips")
struct TIFFEncodingTests {
    @Test(arguments: [PixelLayout.gray8, .rgb8, .rgba8], [0, 6])
    func losslessRoundTrip(_ layout: PixelLayout, _ level: Int) throws {
        let pixels = SyntheticPicture.make(width: 61, height: 45, layout: layout)
        var options = EncodeOptions()
        options.compressionLevel = level
        let data = try TIFFCoder().encode(Image(pixels: pixels), as: .tiff, options: options)
        #expect(ImageFormat.detect(data) == .tiff)
        let decoded = try TIFFCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.layout == layout)
        if layout == .rgba8 {
            // libtiff's reader premultiplies; straight colours under small alpha come back rounded.
            let a = decoded.pixels.packed().bytes, b = pixels.bytes
            for i in stride(from: 0, to: a.count, by: 4) {
                #expect(a[i + 3] == b[i + 3])
                for c in 0..<3 where abs(Int(a[i + c]) * Int(a[i + 3]) - Int(b[i + c]) * Int(b[i + 3])) / 255 > 1 {
                    Issue.record("pixel \(i / 4) channel \(c): \(a[i + c]) vs \(b[i + c]) at alpha \(a[i + 3])")
                }
            }
        } else {
            #expect(decoded.pixels.packed().bytes == pixels.bytes)
        }
    }

    @Test func compressionMakesSmallerFilesOfSmoothPictures() throws {
        let image = Image(pixels: SyntheticPicture.make(width: 200, height: 150))
        var none = EncodeOptions()
        none.compressionLevel = 0
        let raw = try TIFFCoder().encode(image, as: .tiff, options: none)
        let deflated = try TIFFCoder().encode(image, as: .tiff, options: EncodeOptions())
        #expect(raw.count > 200 * 150 * 3)
        #expect(deflated.count < raw.count / 4)
    }

    @Test func theColorProfileIsWrittenWhenAsked() throws {
        let profile = Data((0..<300).map { UInt8($0 & 0xFF) })
        var options = EncodeOptions()
        options.iccProfile = profile
        let data = try TIFFCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 8, height: 8)), as: .tiff, options: options)
        #expect(try TIFFCoder().decode(data, options: DecodeOptions()).metadata.iccProfile == profile)
    }

    @Test func otherFormatsAreNotEncoded() {
        #expect(!TIFFCoder().canEncode(to: .png))
        #expect(throws: ImageError.unsupportedFormat(.png)) {
            try TIFFCoder().encode(
                Image(pixels: SyntheticPicture.make(width: 4, height: 4)), as: .png, options: EncodeOptions())
        }
    }
}
