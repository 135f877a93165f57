import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder
import WebImageTestSupport

/// The encoder writes animations frame by frame from the lazy source (see `GIFEncoder`).
@Suite("GIF streaming encoder")
struct GIFStreamingEncoderTests {
    let coder = GIFCoder()

    @Test func aLazyAnimationIsRewrittenFrameForFrame() throws {
        let source = try coder.decode(
            HostileFiles.bandedAnimationGIF(frames: 12, size: PixelSize(40)),
            options: DecodeOptions())
        let data = try coder.encode(source, as: .gif, options: EncodeOptions())
        let copy = try coder.decode(data, options: DecodeOptions())
        #expect(copy.frameCount == 12 && copy.loopCount == source.loopCount)
        #expect(copy.frameDurations == source.frameDurations)
        for index in [0, 5, 11] { #expect(try copy.frame(at: index).pixels == source.frame(at: index).pixels) }
        // Frames came through the source's small cache, not all at once.
        #expect(source.animation!.cachedFrameCount <= AnimatedFrames.defaultCachedFrameLimit + 1)
    }

    @Test func anAnimationWithADamagedFrameIsWrittenUpToTheFrameBeforeIt() throws {
        let source = try coder.decode(
            HostileFiles.damagedFrameGIF(frames: 5, size: PixelSize(8), damaged: 3),
            options: DecodeOptions())
        #expect(source.frameCount == 5)
        let copy = try coder.decode(
            try coder.encode(source, as: .gif, options: EncodeOptions()), options: DecodeOptions())
        #expect(copy.frameCount == 3 && source.frameCount == 3)
        #expect(try copy.frame(at: 2).pixels == source.frame(at: 2).pixels)
    }

    @Test func firstFrameOnlyWritesAStill() throws {
        let source = try coder.decode(
            HostileFiles.bandedAnimationGIF(frames: 3, size: PixelSize(16)), options: DecodeOptions())
        let still = try coder.decode(
            try coder.encode(source, as: .gif, options: EncodeOptions(firstFrameOnly: true)),
            options: DecodeOptions())
        #expect(!still.isAnimated && still.pixels == source.pixels)
    }
}
