import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Decode options on animations: first frame only, preloading, thumbnails.
@Suite("WebP animation options")
struct WebPAnimationTests {
    let coder = WebPCoder()

    @Test func firstFrameOnlyGivesTheFirstFrameAsAStill() throws {
        let data = try coder.encode(
            WebPTestImages.animation(frames: 5), as: .webp, options: EncodeOptions(lossless: true))
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        let animated = try coder.decode(data, options: DecodeOptions())
        #expect(!still.isAnimated && still.frameCount == 1)
        #expect(still.pixels == (try animated.frame(at: 0).pixels))
    }

    @Test func onlyPreloadingHoldsEveryFrame() throws {
        let count = 10
        let data = try coder.encode(
            WebPTestImages.animation(frames: count, width: 64, height: 64), as: .webp,
            options: EncodeOptions(lossless: true))
        let lazy = try coder.decode(data, options: DecodeOptions())
        let preloaded = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        let frameBytes = 64 * 64 * 4
        #expect(lazy.animation?.cachedFrameCount == 1)
        #expect((preloaded.animation?.cachedByteCount ?? 0) >= count * frameBytes)
        #expect(lazy.memoryCost <= 3 * frameBytes)
        #expect(preloaded.memoryCost >= count * frameBytes)
    }

    @Test func animatedThumbnailsHaveEveryFrameAtTheThumbnailSize() throws {
        let source = WebPTestImages.animation(frames: 4, width: 48, height: 32)
        let data = try coder.encode(source, as: .webp, options: EncodeOptions(lossless: true))
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(24)))
        #expect(thumbnail.isAnimated && thumbnail.frameCount == 4)
        for index in (0..<4).reversed() {
            let frame = try thumbnail.frame(at: index).pixels
            #expect(frame.width == 24 && frame.height == 16, "frame \(index)")
        }
    }
}
