import Foundation
import Testing
import WebImage
import WebImageCore
import WebImageJPEGCoder
import WebImagePNGCoder
import WebImageWebPCoder

@testable import WebImageColorManagement

/// Core's seam: who converts when, what the options compare as, and what encoders write.
@Suite struct ColorProfileSeamTests {
    let converter = LittleCMSConverter()

    /// A 16x16 image of varied colours (no profile).
    static let photo: PixelBuffer = {
        var bytes: [UInt8] = []
        for y in 0..<16 { for x in 0..<16 { bytes += [UInt8(x * 16), UInt8(y * 16), UInt8((x * y) % 256)] } }
        return PixelBuffer(width: 16, height: 16, layout: .rgb8, bytes: bytes)
    }()

    @Test func imagesWithoutAProfileAreUntouchedAndCostNoTransform() throws {
        let coders = ImageCodersManager(coders: [PNGCoder(), JPEGCoder()])
        let png = try coders.encode(Image(pixels: Self.photo), as: .png, options: EncodeOptions())
        let plain = try coders.decode(png, options: DecodeOptions())
        coders.defaultColorConversion = .sRGB(converter)
        let converted = try coders.decode(png, options: DecodeOptions())
        #expect(converted.pixels == plain.pixels)
        #expect(converted.pixels == Self.photo, "bit-exact")
        #expect(converted.metadata.iccProfile == nil)
        // (The shared transform cache is process-wide and other suites fill it in parallel, so its count
        // cannot show that no transform was made here; the bit-exact pixels show nothing was applied.)
    }

    @Test func anSRGBProfileLeavesThePixelsAndDropsTheProfile() throws {
        let image = Image(pixels: Self.photo, metadata: ImageMetadata(iccProfile: ColorFixtures.sRGB))
        let converted = try converter.convertedToSRGB(image)
        #expect(converted.pixels == Self.photo)
        #expect(converted.metadata.iccProfile == nil)
    }

    @Test func optionsWithoutAChoiceFollowTheManagersDefault() throws {
        let coders = ImageCodersManager(coders: [PNGCoder()])
        let png = try coders.encode(
            Image(pixels: Self.photo), as: .png,
            options: EncodeOptions(iccProfile: try ColorFixtures.displayP3))
        coders.defaultColorConversion = .sRGB(converter)
        #expect(try coders.decode(png, options: DecodeOptions()).metadata.iccProfile == nil)
        var keep = DecodeOptions()
        keep.colorConversion = .off
        let kept = try coders.decode(png, options: keep)
        #expect(kept.metadata.iccProfile == (try ColorFixtures.displayP3))
        #expect(kept.pixels == Self.photo)
        // A coder called directly converts nothing on its own (nil means none there)...
        #expect(try PNGCoder().decode(png, options: DecodeOptions()).pixels == Self.photo)
        // ...and converts as the manager does when the options ask.
        var convert = DecodeOptions()
        convert.colorConversion = .sRGB(converter)
        let direct = try PNGCoder().decode(png, options: convert)
        #expect(direct.metadata.iccProfile == nil)
        #expect(direct.pixels == (try coders.decode(png, options: DecodeOptions())).pixels)
        // A thumbnail is converted too (after its resize).
        convert.thumbnailPixelSize = PixelSize(8)
        let thumbnail = try PNGCoder().decode(png, options: convert)
        #expect(thumbnail.width == 8 && thumbnail.metadata.iccProfile == nil)
        #expect(
            thumbnail.pixels
                == (try converter.convertedToSRGB(
                    try PNGCoder().decode(png, options: DecodeOptions(thumbnailPixelSize: PixelSize(8))))).pixels)
    }

    @Test func incrementalDecodesThroughTheManagerAreConverted() throws {
        let coders = ImageCodersManager(coders: [PNGCoder()])
        coders.defaultColorConversion = .sRGB(converter)
        let png = try coders.encode(
            Image(pixels: Self.photo), as: .png,
            options: EncodeOptions(iccProfile: try ColorFixtures.displayP3))
        let decoder = coders.makeIncrementalDecoder(options: DecodeOptions())
        try decoder.append(png)
        let image = try decoder.finish()
        #expect(image.metadata.iccProfile == nil)
        #expect(image.pixels == (try coders.decode(png, options: DecodeOptions())).pixels)
        #expect(image.pixels != Self.photo)
    }

    @Test func decodeOptionsCompareByTheConvertersKey() {
        var a = DecodeOptions(), b = DecodeOptions()
        #expect(a == b)
        a.colorConversion = .sRGB(LittleCMSConverter())
        #expect(a != b)
        b.colorConversion = .sRGB(LittleCMSConverter())
        #expect(a == b && a.hashValue == b.hashValue)
        b.colorConversion = .sRGB(LittleCMSConverter(intent: .relativeColorimetric))
        #expect(a != b)
        b.colorConversion = .off
        #expect(a != b)
    }

    @Test func converterAndTransformerKeysAreStableAndDistinct() {
        var keys = Set<String>()
        for intent in RenderingIntent.allCases {
            for bpc in [false, true] {
                let converter = LittleCMSConverter(intent: intent, blackPointCompensation: bpc)
                #expect(
                    converter.converterKey
                        == LittleCMSConverter(intent: intent, blackPointCompensation: bpc).converterKey)
                #expect(keys.insert(ColorProfileTransformer(converter: converter).transformerKey).inserted)
            }
        }
        #expect(LittleCMSConverter().converterKey == "lcms2(perceptual)")
        #expect(ColorProfileTransformer().transformerKey == "colorProfile(sRGB,lcms2(perceptual))")
    }

    @Test func colorProfileTransformerConvertsOnlyImagesWithAProfile() throws {
        let transformer = ColorProfileTransformer()
        #expect(transformer.transform(Image(pixels: Self.photo), forKey: "k") == nil)
        let tagged = Image(pixels: Self.photo, metadata: ImageMetadata(iccProfile: try ColorFixtures.displayP3))
        let converted = try #require(transformer.transform(tagged, forKey: "k"))
        #expect(converted.metadata.iccProfile == nil)
        #expect(converted.pixels == (try converter.convertedToSRGB(tagged)).pixels)
    }

    // MARK: Encoding: keep or strip

    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func encodersKeepTheProfileOnlyWhenAsked(format: ImageFormat) throws {
        let coders = ImageCodersManager(coders: [PNGCoder(), JPEGCoder(), WebPCoder()])
        let p3 = try ColorFixtures.displayP3
        let tagged = Image(pixels: Self.photo, metadata: ImageMetadata(iccProfile: p3))
        var keep = EncodeOptions()
        keep.keepsColorProfile = true
        var asStored = DecodeOptions()
        asStored.colorConversion = .off
        let kept = try coders.decode(try coders.encode(tagged, as: format, options: keep), options: asStored)
        #expect(kept.metadata.iccProfile == p3)
        let stripped = try coders.decode(
            try coders.encode(tagged, as: format, options: EncodeOptions()), options: asStored)
        #expect(stripped.metadata.iccProfile == nil, "strip is the default")
        // Converted on decode, the image is sRGB: keeping writes no profile (not the source's).
        let converted = try converter.convertedToSRGB(tagged)
        let rewritten = try coders.decode(try coders.encode(converted, as: format, options: keep), options: asStored)
        #expect(rewritten.metadata.iccProfile == nil)
        // An explicit profile wins.
        var explicit = keep
        explicit.iccProfile = ColorFixtures.sRGB
        let tagged2 = try coders.decode(try coders.encode(tagged, as: format, options: explicit), options: asStored)
        #expect(tagged2.metadata.iccProfile == ColorFixtures.sRGB)
    }

    @Test func aCMYKProfileIsNeverKeptOverRGBPixels() throws {
        var asStored = DecodeOptions()
        asStored.colorConversion = .off
        let naive = try JPEGCoder().decode(try ColorFixtures.cmykJPEG, options: asStored)
        #expect(naive.metadata.iccColorSpace == "CMYK")
        var keep = EncodeOptions()
        keep.keepsColorProfile = true
        #expect(keep.colorProfile(for: naive) == nil)
        let png = try PNGCoder().encode(naive, as: .png, options: keep)
        #expect(try PNGCoder().decode(png, options: asStored).metadata.iccProfile == nil)
    }

    /// The `WebImage` module converts by default.
    @Test func theWebImageModuleConvertsByDefault() {
        WebImage.registerBuiltInCoders()
        #expect(ImageCodersManager.shared.defaultColorConversion == .sRGB(LittleCMSConverter()))
    }
}
