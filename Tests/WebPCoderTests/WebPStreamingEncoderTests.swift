import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Animations are encoded from the lazy source one frame at a time.
@Suite("WebP streaming animation encoder")
struct WebPStreamingEncoderTests {
    let coder = WebPCoder()

    @Test func convertingAnAnimationHoldsAFewCanvases() throws {
        let frames = 300, side = 200
        let image = try coder.decode(
            HostileFiles.manyFramesAnimatedWebP(frames: frames, canvas: PixelSize(side)),
            options: DecodeOptions())
        let encoded = try coder.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        let animation = try #require(image.animation)
        #expect(!animation.isFullyLoaded)
        #expect(animation.cachedByteCount <= 3 * side * side * 4)
        let back = try coder.decode(encoded, options: DecodeOptions())
        #expect(back.frameCount == frames)
        #expect(try back.frame(at: 299).pixels == image.frame(at: 299).pixels)
    }
}
