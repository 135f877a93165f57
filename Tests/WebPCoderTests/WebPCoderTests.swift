import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

@Suite("WebPCoder")
struct WebPCoderTests {
    let coder = WebPCoder()

    @Test(arguments: [PixelLayout.rgb8, .rgba8])
    func losslessRoundTripIsExactAndAlphaDecidesTheLayout(layout: PixelLayout) throws {
        let source = TestPictures.gradient(width: 41, height: 29, layout: layout)
        let data = try coder.encode(Image(pixels: source), as: .webp, options: EncodeOptions(lossless: true))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.pixels.layout == layout)
        #expect(decoded.pixels == source)
    }

    @Test func lossyRoundTripIsCloseAndQualityControlsSize() throws {
        let source = TestPictures.gradient(width: 128, height: 96, layout: .rgb8)
        let lossy = try coder.encode(Image(pixels: source), as: .webp, options: EncodeOptions(quality: 0.9))
        let rough = try coder.encode(Image(pixels: source), as: .webp, options: EncodeOptions(quality: 0.2))
        let decoded = try coder.decode(lossy, options: DecodeOptions())
        #expect(decoded.pixels.layout == .rgb8)
        #expect(TestPictures.maxDifference(decoded.pixels, source) <= 24)
        #expect(rough.count < lossy.count)
    }

    @Test func scaledDecodeGivesTheThumbnailSize() throws {
        let data = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 300, height: 200, layout: .rgb8)),
            as: .webp, options: EncodeOptions(quality: 0.8))
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(60)))
        #expect(thumbnail.width == 60 && thumbnail.height == 40)
    }

    func animation(frames count: Int) -> Image {
        let frames = (0..<count).map { i -> ImageFrame in
            var pixels = PixelBuffer(width: 24, height: 16, layout: .rgba8)
            for y in 0..<16 {
                for x in 0..<24 where (x + i * 3) % 24 < 8 {
                    let o = (y * 24 + x) * 4
                    pixels.bytes[o] = UInt8(i * 20); pixels.bytes[o + 1] = 200; pixels.bytes[o + 3] = 255
                }
            }
            return ImageFrame(pixels: pixels, duration: .milliseconds(50 * (i + 1)))
        }
        return Image(frames: frames, loopCount: 3)
    }

    @Test func animatedRoundTripKeepsFramesDurationsAndLoopCount() throws {
        let source = animation(frames: 6)
        let data = try coder.encode(source, as: .webp, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.isAnimatedWebP(data))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.isAnimated && decoded.frameCount == 6 && decoded.loopCount == 3)
        #expect(decoded.frameDurations.map { ($0 / .milliseconds(1)).rounded() } == [50, 100, 150, 200, 250, 300])
        for index in 0..<6 {
            #expect(try decoded.frame(at: index).pixels == source.frame(at: index).pixels, "frame \(index)")
        }
        // Only frame 0 was composed while decoding: the rest are lazy.
        let fresh = try coder.decode(data, options: DecodeOptions())
        #expect(fresh.animation?.cachedFrameCount == 1)
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true)).isAnimated == false)
    }

    @Test func randomOrderFrameAccessEqualsSequentialComposition() throws {
        let data = try coder.encode(animation(frames: 10), as: .webp, options: EncodeOptions(quality: 0.8))
        let sequential = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        let lazy = try coder.decode(data, options: DecodeOptions())
        for index in (0..<10).shuffled() {
            #expect(try lazy.frame(at: index).pixels == sequential.frame(at: index).pixels)
        }
    }

    @Test func malformedDataAndHugeCanvasesFailWithTypedErrors() throws {
        let good = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 32, height: 32, layout: .rgb8)),
            as: .webp, options: EncodeOptions(quality: 0.8))
        var badRIFF = [UInt8](good)
        badRIFF[4] = 0xFF; badRIFF[5] = 0xFF; badRIFF[6] = 0xFF; badRIFF[7] = 0x7F
        for broken in [Data(), good.prefix(20), good.prefix(good.count / 2), Data(badRIFF)] {
            #expect(throws: ImageError.self) { try coder.decode(broken, options: DecodeOptions()) }
        }
        #expect(throws: ImageError.imageTooLarge(width: 32, height: 32, limit: 500)) {
            try coder.decode(good, options: DecodeOptions(maxPixelCount: 500))
        }
    }

    @Test func decodesTheCorpusAndRejectsItsMalformedFiles() throws {
        guard Corpus.root != nil else { return }  // the corpus is optional; fixtures above cover the rest
        let failures = CorpusChecks.failures(of: coder, format: "webp")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}

@Suite("WebP incremental decoding")
struct WebPIncrementalTests {
    @Test(arguments: [1, 100, 4096])
    func chunkedDecodingEndsWithTheFullImage(chunk: Int) throws {
        let coder = WebPCoder()
        let source = TestPictures.gradient(width: 96, height: 80, layout: .rgba8)
        let data = try coder.encode(Image(pixels: source), as: .webp, options: EncodeOptions(lossless: true))
        let (image, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), data, chunk: chunk)
        let sawPartial = !partials.isEmpty
        #expect(image.pixels == source)
        #expect(!image.isIncomplete)
        if chunk < data.count / 2 { #expect(sawPartial) }
    }

    @Test(arguments: [100, 4096], [true, false])
    func chunkedThumbnailsAreScaledWhileDecodingAndEqualAWholeDecode(chunk: Int, lossless: Bool) throws {
        let coder = WebPCoder()
        let source = TestPictures.gradient(width: 300, height: 200, layout: .rgb8)
        let data = try coder.encode(
            Image(pixels: source), as: .webp, options: EncodeOptions(quality: 0.8, lossless: lossless))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(60))
        let (image, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: options), data, chunk: chunk)
        #expect(image.pixels == (try coder.decode(data, options: options)).pixels)
        #expect(image.width == 60 && image.height == 40)
        #expect(partials.allSatisfy { $0.width == 60 && $0.height == 40 })
    }

    @Test func truncatedStreamsFailUnlessPartialImagesAreAllowed() throws {
        let coder = WebPCoder()
        let data = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 96, height: 80, layout: .rgb8)),
            as: .webp, options: EncodeOptions(quality: 0.8))
        let strict = coder.makeIncrementalDecoder(options: DecodeOptions())
        try strict.append(data.prefix(data.count * 2 / 3))
        #expect(throws: ImageError.self) { try strict.finish() }
        let lenient = coder.makeIncrementalDecoder(options: DecodeOptions(allowPartialImage: true))
        try lenient.append(data.prefix(data.count * 2 / 3))
        #expect(try lenient.finish().isIncomplete)
    }
}
