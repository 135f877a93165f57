import Foundation
import Synchronization
import Testing

@testable import WebImageCore

/// A frame source where frame i adds i+1 to every pixel of the canvas it is drawn on, and every third
/// frame disposes back to the background it started from: composition depends on every earlier frame.
final class CountingSource: AnimatedFrameSource {
    let canvasWidth = 4
    let canvasHeight = 2
    let frameCount: Int
    let loopCount = 0
    /// Guards the log of frames composed.
    private let log = Locked<[Int]>([])

    init(frameCount: Int) { self.frameCount = frameCount }

    var composed: [Int] { log.withLock { $0 } }

    func duration(at index: Int) -> Duration { .milliseconds(50 * (index + 1)) }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        log.withLock { $0.append(index) }
        let base = background ?? PixelBuffer(width: 4, height: 2, layout: .gray8)
        var frame = base
        frame.bytes = base.bytes.map { $0 &+ UInt8(index + 1) }
        return ComposedFrame(frame: frame, nextBackground: index % 3 == 2 ? base : nil)
    }

    /// The expected frame, computed independently.
    static func expected(_ index: Int) -> UInt8 {
        var value = 0
        for i in 0...index {
            if i % 3 == 2 && i != index { continue }  // disposed frames leave no trace on later ones
            value += i + 1
        }
        return UInt8(value % 256)
    }
}

@Suite("Lazy animated frames")
struct AnimatedFramesTests {
    @Test func downsampledFramesKeepOneFullCanvasAndComposeForward() throws {
        let source = CountingSource(frameCount: 30)
        let frames = AnimatedFrames(source: source, outputSize: (width: 2, height: 1))
        let canvas = 4 * 2, thumbnail = 2 * 1
        for index in 0..<30 {
            let frame = try frames.frame(at: index)
            #expect(frame.pixels.width == 2 && frame.pixels.height == 1)
            #expect(frame.pixels.bytes[0] == CountingSource.expected(index), "frame \(index)")
            // One full-size canvas plus at most three thumbnails, however many frames were played.
            #expect(frames.cachedByteCount <= canvas + 3 * thumbnail)
        }
        // Playing forward composed each frame once.
        #expect(source.composed == Array(0..<30))
        // Going back restarts from frame 0 and still gives the right pixels.
        #expect(try frames.frame(at: 5).pixels.bytes[0] == CountingSource.expected(5))
    }

    @Test func randomOrderAccessEqualsSequentialComposition() throws {
        let source = CountingSource(frameCount: 20)
        let frames = AnimatedFrames(source: source)
        for index in (0..<20).shuffled() + (0..<20).shuffled() {
            #expect(try frames.frame(at: index).pixels.bytes[0] == CountingSource.expected(index), "frame \(index)")
        }
    }

    @Test func playingForwardComposesEachFrameOnce() throws {
        let source = CountingSource(frameCount: 30)
        let frames = AnimatedFrames(source: source)
        for index in 0..<30 { _ = try frames.frame(at: index) }
        #expect(source.composed == Array(0..<30))
        #expect(frames.cachedFrameCount <= AnimatedFrames.defaultCachedFrameLimit + 1)
    }

    @Test func composesForwardFromTheNearestKeptFrame() throws {
        let source = CountingSource(frameCount: 30)
        let frames = AnimatedFrames(source: source)
        _ = try frames.frame(at: 10)
        _ = try frames.frame(at: 14)
        #expect(source.composed == Array(0...10) + [11, 12, 13, 14])
    }

    @Test func imageKnowsShapeUpFrontAndDecodesOnlyFrameZero() throws {
        let source = CountingSource(frameCount: 5)
        let image = try Image.decodedAnimation(source: source, format: .gif, options: DecodeOptions())
        #expect(image.frameCount == 5 && image.isAnimated && image.loopCount == 0)
        #expect(image.frameDurations == (0..<5).map { .milliseconds(50 * ($0 + 1)) })
        #expect(source.composed == [0])
    }

    @Test func firstFrameOnlyGivesAStillAndPreloadDecodesAll() throws {
        let still = try Image.decodedAnimation(
            source: CountingSource(frameCount: 5), format: .gif,
            options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated && still.frameCount == 1)
        let source = CountingSource(frameCount: 5)
        let preloaded = try Image.decodedAnimation(
            source: source, format: .gif, options: DecodeOptions(preloadAllFrames: true))
        #expect(preloaded.animation?.isFullyLoaded == true)
        #expect(source.composed == [0, 1, 2, 3, 4])
        #expect(try preloaded.frame(at: 4).pixels.bytes[0] == CountingSource.expected(4))
    }

    @Test func thumbnailFramesAreDownsampledAndStillComposeCorrectly() throws {
        let source = CountingSource(frameCount: 8)
        let image = try Image.decodedAnimation(
            source: source, format: .gif,
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 2, height: 1)))
        #expect(image.width == 2 && image.height == 1)
        for index in [7, 3, 5] {
            let frame = try image.frame(at: index)
            #expect(frame.pixels.width == 2)
            #expect(frame.pixels.bytes[0] == CountingSource.expected(index))
        }
    }
}
