import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// A damaged later frame ends the animation at the frame before it, lazily and eagerly alike.
@Suite("WebP damaged frames")
struct WebPDamagedFrameTests {
    let coder = WebPCoder()
    let data = HostileFiles.manyFramesAnimatedWebP(frames: 4, canvas: PixelSize(8), damagedFrame: 2)

    @Test func theDecodeSucceedsAndStopsAtTheLastGoodFrame() throws {
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.frameCount == 4)
        let last = try image.frame(at: 3)
        #expect(image.frameCount == 2)
        #expect(last.pixels == (try image.frame(at: 1).pixels))
    }

    @Test func preloadingKeepsTheSameFrames() throws {
        let lazy = try coder.decode(data, options: DecodeOptions())
        let eager = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(eager.frameCount == 2)
        for index in 0..<2 { #expect(try eager.frame(at: index).pixels == lazy.frame(at: index).pixels) }
    }

    @Test func convertingTheAnimationWritesTheGoodFrames() throws {
        let image = try coder.decode(data, options: DecodeOptions())
        let encoded = try coder.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        #expect(try coder.decode(encoded, options: DecodeOptions()).frameCount == 2)
    }

    @Test func aDamagedFirstFrameFailsTheDecode() {
        let first = HostileFiles.manyFramesAnimatedWebP(frames: 2, canvas: PixelSize(8), damagedFrame: 0)
        #expect(throws: ImageError.self) { try coder.decode(first, options: DecodeOptions(firstFrameOnly: true)) }
        #expect(throws: ImageError.self) { try coder.decode(first, options: DecodeOptions(preloadAllFrames: true)) }
    }
}
