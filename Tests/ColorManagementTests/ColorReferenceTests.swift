import Foundation
import Testing
import WebImageColorManagement
import WebImageCore
import WebImageJPEGCoder
import WebImagePNGCoder
import WebImageWebPCoder

/// Converted pixels against color-reference.tsv (Pillow's ImageCms, see scripts/reference/color-reference.py),
/// within ``tolerance`` levels per channel: two builds of Little CMS and two sRGB profiles round differently
/// by up to one level each.
@Suite struct ColorReferenceTests {
    static let tolerance = 2
    let converter = LittleCMSConverter()

    @Test(arguments: ["display-p3.icc", "adobe-rgb.icc"])
    func rgbProfilesMatchTheReference(profileName: String) throws {
        let references = try ColorFixtures.references(kind: "rgb", profile: profileName)
        #expect(references.count >= 10)
        let profile = try ColorFixtures.profile(profileName)
        let image = Image(
            pixels: ColorFixtures.rgbRow(references.map(\.input)), metadata: ImageMetadata(iccProfile: profile))
        let converted = try converter.convertedToSRGB(image)
        #expect(converted.pixels.layout == .rgb8)
        #expect(converted.metadata.iccProfile == nil, "the pixels are sRGB now: the source profile must go")
        for (index, reference) in references.enumerated() {
            let got = Array(converted.pixels.bytes[index * 3..<index * 3 + 3])
            #expect(
                ColorFixtures.maxDifference(got, reference.expected) <= Self.tolerance,
                "\(profileName) \(reference.input): got \(got), expected \(reference.expected)")
        }
    }

    /// The phone-photo case: P3 colours read as sRGB look washed out; converted, they get more saturated.
    @Test func displayP3ColoursBecomeMoreSaturatedNotWashedOut() throws {
        let profile = try ColorFixtures.displayP3
        let image = Image(
            pixels: ColorFixtures.rgbRow([[255, 0, 0], [200, 60, 60]]), metadata: ImageMetadata(iccProfile: profile))
        let bytes = try converter.convertedToSRGB(image).pixels.bytes
        // Saturated P3 red lies outside sRGB: it becomes sRGB's most saturated red.
        #expect(ColorFixtures.maxDifference(Array(bytes[0..<3]), [255, 0, 0]) <= Self.tolerance)
        // A muted P3 red (Pillow: 217, 42, 52): red up, green and blue down.
        #expect(ColorFixtures.maxDifference(Array(bytes[3..<6]), [217, 42, 52]) <= Self.tolerance)
        #expect(bytes[3] > 200 && bytes[4] < 60 && bytes[5] < 60)
    }

    @Test func rgbaKeepsItsAlpha() throws {
        let references = try ColorFixtures.references(kind: "rgb", profile: "display-p3.icc")
        let alphas = references.indices.map { UInt8(($0 * 37) % 256) }
        let bytes = zip(references, alphas).flatMap { $0.input + [$1] }
        let pixels = PixelBuffer(width: references.count, height: 1, layout: .rgba8, bytes: bytes)
        let converted = try converter.convertedToSRGB(
            Image(pixels: pixels, metadata: ImageMetadata(iccProfile: try ColorFixtures.displayP3)))
        #expect(converted.pixels.layout == .rgba8)
        for (index, reference) in references.enumerated() {
            let got = Array(converted.pixels.bytes[index * 4..<index * 4 + 4])
            #expect(got[3] == alphas[index])
            #expect(ColorFixtures.maxDifference(Array(got[0..<3]), reference.expected) <= Self.tolerance)
        }
    }

    @Test func grayWithAProfileStaysGray() throws {
        let references = try ColorFixtures.references(kind: "gray")
        let pixels = PixelBuffer(width: references.count, height: 1, layout: .gray8, bytes: references.flatMap(\.input))
        let image = Image(
            pixels: pixels, metadata: ImageMetadata(iccProfile: try ColorFixtures.profile("gray-gamma18.icc")))
        let converted = try converter.convertedToSRGB(image)
        #expect(converted.pixels.layout == .gray8)
        #expect(ColorFixtures.maxDifference(converted.pixels.bytes, references.flatMap(\.expected)) <= Self.tolerance)
    }

    /// PNG gray with alpha decodes to RGBA with R = G = B, still tagged with its gray profile.
    @Test func grayExpandedToRGBAWithAGrayProfileIsConverted() throws {
        let references = try ColorFixtures.references(kind: "gray")
        let bytes = references.enumerated().flatMap { index, reference in
            [reference.input[0], reference.input[0], reference.input[0], UInt8(index * 20)]
        }
        let pixels = PixelBuffer(width: references.count, height: 1, layout: .rgba8, bytes: bytes)
        let image = Image(
            pixels: pixels, metadata: ImageMetadata(iccProfile: try ColorFixtures.profile("gray-gamma18.icc")))
        let converted = try converter.convertedToSRGB(image)
        #expect(converted.pixels.layout == .rgba8 && converted.metadata.iccProfile == nil)
        for (index, reference) in references.enumerated() {
            let p = converted.pixels.rgba(x: index, y: 0)
            #expect(p.a == UInt8(index * 20) && p.r == p.g && p.g == p.b)
            #expect(ColorFixtures.maxDifference([p.r], reference.expected) <= Self.tolerance)
        }
    }

    /// A P3 PNG and a lossless WebP written with the profile, decoded through a coders manager that converts.
    @Test(arguments: [ImageFormat.png, .webp])
    func filesWithAnEmbeddedProfileDecodeToSRGB(format: ImageFormat) throws {
        let references = try ColorFixtures.references(kind: "rgb", profile: "display-p3.icc")
        let image = Image(pixels: ColorFixtures.rgbRow(references.map(\.input)))
        let coders = ImageCodersManager(coders: [PNGCoder(), WebPCoder()])
        let data = try coders.encode(
            image, as: format,
            options: EncodeOptions(lossless: true, iccProfile: try ColorFixtures.displayP3))
        let stored = try coders.decode(data, options: DecodeOptions())
        #expect(stored.metadata.iccProfile == (try ColorFixtures.displayP3), "no conversion by default in Core")
        coders.defaultColorConversion = .sRGB(converter)
        let decoded = try coders.decode(data, options: DecodeOptions())
        #expect(decoded.metadata.iccProfile == nil)
        #expect(
            ColorFixtures.maxDifference(
                Array(decoded.pixels.converted(to: .rgb8).bytes),
                references.flatMap(\.expected)) <= Self.tolerance)
    }

    /// CMYK goes through the profile, not the naive formula (which this profile's ink curve departs from).
    @Test func cmykJPEGWithAProfileConvertsThroughIt() throws {
        let references = try ColorFixtures.references(kind: "cmyk")
        var options = DecodeOptions()
        options.colorConversion = .sRGB(converter)
        let managed = try JPEGCoder().decode(try ColorFixtures.cmykJPEG, options: options)
        options.colorConversion = .off
        let naive = try JPEGCoder().decode(try ColorFixtures.cmykJPEG, options: options)
        #expect(managed.pixels.layout == .rgb8)
        #expect(managed.metadata.iccProfile == nil)
        #expect(naive.metadata.iccColorSpace == "CMYK", "unconverted, the file keeps its profile")
        var largestNaiveError = 0
        for reference in references {
            let m = managed.pixels.rgba(x: reference.x, y: reference.y),
                n = naive.pixels.rgba(x: reference.x, y: reference.y)
            #expect(
                ColorFixtures.maxDifference([m.r, m.g, m.b], reference.expected) <= Self.tolerance,
                "ink \(reference.input): got \([m.r, m.g, m.b]), expected \(reference.expected)")
            largestNaiveError = max(
                largestNaiveError, ColorFixtures.maxDifference([n.r, n.g, n.b], reference.expected))
        }
        #expect(largestNaiveError > 20, "the test profile must tell managed from naive conversion")
    }

    @Test func cmykJPEGDecodedIncrementallyMatchesTheWholeDecode() throws {
        var options = DecodeOptions()
        options.colorConversion = .sRGB(converter)
        let data = try ColorFixtures.cmykJPEG
        let whole = try JPEGCoder().decode(data, options: options)
        let decoder = JPEGCoder().makeIncrementalDecoder(options: options)
        let chunk = 4096
        for start in stride(from: 0, to: data.count, by: chunk) {
            try decoder.append(data[start..<min(data.count, start + chunk)])
            if let partial = decoder.partialImage() { #expect(partial.pixels.layout == .rgb8) }
        }
        let finished = try decoder.finish()
        #expect(finished.pixels == whole.pixels)
        #expect(finished.metadata.iccProfile == nil)
    }

    @Test func cmykThumbnailIsConvertedBeforeItIsResized() throws {
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 8))
        options.colorConversion = .sRGB(converter)
        let thumbnail = try JPEGCoder().decode(try ColorFixtures.cmykJPEG, options: options)
        #expect(thumbnail.width == 64 && thumbnail.height == 8)
        // Tile 5 (x 40...47 at half size) against its reference colour.
        let reference = try ColorFixtures.references(kind: "cmyk")[5]
        let p = thumbnail.pixels.rgba(x: 44, y: 4)
        #expect(ColorFixtures.maxDifference([p.r, p.g, p.b], reference.expected) <= Self.tolerance + 1)
    }
}
