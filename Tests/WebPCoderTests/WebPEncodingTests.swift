import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Layout by alpha, lossless and lossy effort, and incremental partial images.
@Suite("WebP encoding and layouts")
struct WebPEncodingTests {
    let coder = WebPCoder()

    @Test func lossyWithAlphaDecodesToRGBA8AndOpaqueToRGB8() throws {
        // The gradient's alpha falls from 255 to 55 across; the opaque twin is RGBA with alpha 255 everywhere.
        let withAlpha = TestPictures.gradient(width: 32, height: 24, layout: .rgba8)
        let opaqueRGBA = TestPictures.gradient(width: 32, height: 24, layout: .rgb8).converted(to: .rgba8)
        let alpha = try coder.decode(
            try coder.encode(Image(pixels: withAlpha), as: .webp, options: EncodeOptions(quality: 0.8)),
            options: DecodeOptions())
        let opaque = try coder.decode(
            try coder.encode(Image(pixels: opaqueRGBA), as: .webp, options: EncodeOptions(quality: 0.8)),
            options: DecodeOptions())
        #expect(alpha.pixels.layout == .rgba8)
        #expect(TestPictures.maxDifference(alpha.pixels, withAlpha) <= 24)
        #expect(opaque.pixels.layout == .rgb8)
    }

    @Test func losslessEffortChangesTheSizeAndStaysExact() throws {
        let source = WebPTestImages.noise(width: 64, height: 64, layout: .rgb8)
        var smooth = TestPictures.gradient(width: 128, height: 128, layout: .rgb8)
        for i in stride(from: 0, to: 64 * 64 * 3, by: 1) where i % 7 == 0 { smooth.bytes[i] = source.bytes[i] }
        let fast = try coder.encode(
            Image(pixels: smooth), as: .webp, options: EncodeOptions(compressionLevel: 0, lossless: true))
        let small = try coder.encode(
            Image(pixels: smooth), as: .webp, options: EncodeOptions(compressionLevel: 9, lossless: true))
        #expect(small.count < fast.count)
        #expect(try coder.decode(fast, options: DecodeOptions()).pixels == smooth)
        #expect(try coder.decode(small, options: DecodeOptions()).pixels == smooth)
    }

    @Test func lossyEffortTradesSizeAndDefaultsToLibwebpsMethod4() throws {
        let noise = WebPTestImages.noise(width: 128, height: 128, layout: .rgb8)
        var photo = TestPictures.gradient(width: 128, height: 128, layout: .rgb8)
        for i in stride(from: 0, to: photo.bytes.count, by: 3) {
            photo.bytes[i] = photo.bytes[i] / 2 + noise.bytes[i] / 4
        }
        func encoded(_ effort: Int?) throws -> Data {
            var options = EncodeOptions(quality: 0.8)
            options.lossyEffort = effort
            return try coder.encode(Image(pixels: photo), as: .webp, options: options)
        }
        let fastest = try encoded(0), standard = try encoded(nil), smallest = try encoded(6)
        #expect(try encoded(4) == standard)
        #expect(try encoded(-3) == fastest && encoded(60) == smallest)
        #expect(fastest.count > smallest.count)
        for data in [fastest, standard, smallest] {
            let decoded = try coder.decode(data, options: DecodeOptions())
            #expect(decoded.pixels.width == 128 && TestPictures.maxDifference(decoded.pixels, photo) <= 64)
        }
    }

    @Test(arguments: [100, 4096])
    func incrementalDecodingShowsFullSizePartialImagesBeforeTheEnd(chunk: Int) throws {
        let source = WebPTestImages.noise(width: 256, height: 256, layout: .rgb8)
        let data = try coder.encode(Image(pixels: source), as: .webp, options: EncodeOptions(quality: 0.9))
        try #require(data.count > 4 * chunk)
        let (image, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), data, chunk: chunk)
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.isIncomplete && $0.width == 256 && $0.height == 256 })
        #expect(!image.isIncomplete)
        #expect(image.pixels == (try coder.decode(data, options: DecodeOptions()).pixels))
    }
}
