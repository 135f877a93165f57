import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

@Suite("APNGCoder")
struct APNGCoderTests {
    let coder = APNGCoder()

    /// Four different frames of one canvas.
    static func animation(layout: PixelLayout, loopCount: Int) -> Image {
        let durations: [Duration] = [50, 100, 250, 1500].map { .milliseconds($0) }
        let frames = durations.enumerated().map { index, duration in
            var pixels = TestPictures.gradient(width: 23, height: 17, layout: layout)
            for i in stride(from: index, to: pixels.bytes.count, by: 7) { pixels.bytes[i] &+= UInt8(40 * index) }
            return ImageFrame(pixels: pixels, duration: duration)
        }
        return Image(frames: frames, loopCount: loopCount, format: .png)
    }

    @Test(arguments: [(PixelLayout.rgba8, 0), (.rgb8, 3), (.gray8, 1)])
    func encodingThenDecodingKeepsFramesDurationsAndLoopCount(layout: PixelLayout, loopCount: Int) throws {
        let source = Self.animation(layout: layout, loopCount: loopCount)
        let data = try coder.encode(source, as: .png, options: EncodeOptions())
        #expect(coder.canDecode(data))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.isAnimated && decoded.format == .png)
        #expect(decoded.frameCount == 4)
        #expect(decoded.loopCount == loopCount)
        #expect(decoded.frameDurations == [50, 100, 250, 1500].map { .milliseconds($0) })
        for index in 0..<4 {
            let expected = try source.frame(at: index).pixels.converted(to: .rgba8)
            #expect(try decoded.frame(at: index).pixels == expected, "frame \(index)")
        }
        // A still-only decoder shows frame 0, the default image.
        let still = try PNGCoder().decode(data, options: DecodeOptions())
        #expect(still.pixels.converted(to: .rgba8) == (try source.frame(at: 0).pixels.converted(to: .rgba8)))
    }

    @Test func stillsAndFirstFrameOnlyEncodeAsPlainPNG() throws {
        let still = Image(pixels: TestPictures.quadrants())
        let plain = try coder.encode(still, as: .png, options: EncodeOptions())
        #expect(!coder.canDecode(plain))
        #expect(try PNGCoder().decode(plain, options: DecodeOptions()).pixels == still.pixels)
        let first = try coder.encode(
            Self.animation(layout: .rgba8, loopCount: 0), as: .png,
            options: EncodeOptions(firstFrameOnly: true))
        #expect(!coder.canDecode(first))
        #expect(throws: ImageError.unsupportedFormat(.jpeg)) {
            try coder.encode(still, as: .jpeg, options: EncodeOptions())
        }
    }

    @Test func maxPixelSizeShrinksEveryFrame() throws {
        let data = try coder.encode(
            Self.animation(layout: .rgba8, loopCount: 0), as: .png,
            options: EncodeOptions(maxPixelSize: PixelSize(10)))
        let decoded = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(decoded.frameCount == 4 && decoded.width <= 10 && decoded.height <= 10)
        #expect(try decoded.frame(at: 3).pixels.width == decoded.width)
    }

    @Test func framesDecodeLazilyAndRandomOrderEqualsSequentialComposition() throws {
        let data = try APNGFixture.mixedOps.data()
        let sequential = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(sequential.animation?.isFullyLoaded == true)
        let expected = try (0..<sequential.frameCount).map { try sequential.frame(at: $0).pixels }

        let lazy = try coder.decode(data, options: DecodeOptions())
        let animation = try #require(lazy.animation)
        #expect(!animation.isFullyLoaded)
        #expect(lazy.memoryCost < sequential.memoryCost)
        #expect(animation.frameCount == APNGFixture.mixedOps.frames.count)
        #expect(animation.loopCount == 2)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<40 {
            let index = Int.random(in: 0..<animation.frameCount, using: &generator)
            #expect(try animation.frame(at: index).pixels == expected[index], "frame \(index)")
            #expect(animation.cachedFrameCount <= AnimatedFrames.defaultCachedFrameLimit + 1)
        }
    }

    @Test func firstFrameOnlyGivesAStill() throws {
        let data = try APNGFixture.mixedOps.data()
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated)
        #expect(still.pixels == APNGFixture.mixedOps.frames[0].pixels)
    }

    @Test func thumbnailsOfAnimationsAreDownsampled() throws {
        let data = try coder.encode(Self.animation(layout: .rgba8, loopCount: 0), as: .png, options: EncodeOptions())
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(8)))
        #expect(image.isAnimated && image.width <= 8 && image.height <= 8)
        #expect(try image.frame(at: 3).pixels.width == image.width)
    }

    @Test(arguments: [
        (UInt16(1), UInt16(0), 0.1),  // den 0 means 1/100 s: 10 ms plays as 100 ms
        (3, 0, 0.03),
        (0, 0, 0.1),  // zero delay plays as 100 ms, as in browsers
        (10, 1000, 0.1),
        (11, 1000, 0.011),
        (1, 2, 0.5),
        (65535, 1000, 65.535),
    ])
    func delaysAreFractionsWithBrowserClamping(numerator: UInt16, denominator: UInt16, seconds: Double) throws {
        let frame = APNGFixture.Frame(
            pixels: APNGFixture.solid(2, 2, [1, 2, 3, 255]), delayNumerator: numerator,
            delayDenominator: denominator)
        let data = try APNGFixture(width: 2, height: 2, frames: [frame, frame]).data()
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.frameDurations.count == 2)
        #expect(abs(image.frameDurations[0] / .seconds(1) - seconds) < 1e-9)
    }
}
