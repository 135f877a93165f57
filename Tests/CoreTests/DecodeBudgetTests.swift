import Foundation
import Testing

@testable import WebImageCore

/// A source of `frameCount` gray frames where frame i has value i + 1 and frames from `damagedFrom` on
/// fail as a corrupt frame does (`.badImageData`), or with `otherError` when it is set.
final class DamagedSource: AnimatedFrameSource {
    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    let loopCount = 0
    let damagedFrom: Int
    let otherError: ImageError?

    init(frameCount: Int, damagedFrom: Int, otherError: ImageError? = nil, width: Int = 4, height: Int = 2) {
        self.frameCount = frameCount
        self.damagedFrom = damagedFrom
        self.otherError = otherError
        canvasWidth = width
        canvasHeight = height
    }

    func duration(at index: Int) -> Duration { .milliseconds(100) }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        if index >= damagedFrom { throw otherError ?? .badImageData(reason: "frame \(index) is corrupt") }
        var frame = PixelBuffer(width: canvasWidth, height: canvasHeight, layout: .gray8)
        frame.bytes = [UInt8](repeating: UInt8(index + 1), count: canvasWidth * canvasHeight)
        return ComposedFrame(frame: frame, nextBackground: nil)
    }
}

@Suite("Decode budgets and damaged frames")
struct DecodeBudgetTests {
    @Test func aDamagedLaterFrameEndsTheAnimationAtTheFrameBefore() throws {
        let frames = AnimatedFrames(source: DamagedSource(frameCount: 6, damagedFrom: 3))
        #expect(frames.frameCount == 6)  // not known until frame 3 is asked for
        #expect(try frames.frame(at: 4).pixels.bytes[0] == 3)  // the last good frame
        #expect(frames.frameCount == 3)
        #expect(frames.durations.count == 3)
        #expect(try frames.frame(at: 5).pixels.bytes[0] == 3)
        #expect(try frames.frame(at: 1).pixels.bytes[0] == 2)
    }

    @Test func lazyAndEagerPathsKeepTheSameFrames() throws {
        let lazy = AnimatedFrames(source: DamagedSource(frameCount: 6, damagedFrom: 4))
        var seen: [UInt8] = []
        try lazy.forEachFrame { seen.append($0.pixels.bytes[0]) }
        let eager = AnimatedFrames(source: DamagedSource(frameCount: 6, damagedFrom: 4))
        try eager.preloadAllFrames()
        #expect(seen == [1, 2, 3, 4])
        #expect(eager.frameCount == 4 && eager.isFullyLoaded)
        #expect(try (0..<eager.frameCount).map { try eager.frame(at: $0).pixels.bytes[0] } == seen)
        #expect(lazy.frameCount == eager.frameCount)
    }

    @Test func aDamagedFirstFrameFailsTheDecode() {
        let source = DamagedSource(frameCount: 3, damagedFrom: 0)
        #expect(throws: ImageError.self) {
            try Image.decodedAnimation(source: source, format: .gif, options: DecodeOptions())
        }
    }

    @Test func budgetAndCancellationErrorsAreNotDamage() {
        let frames = AnimatedFrames(source: DamagedSource(frameCount: 4, damagedFrom: 2, otherError: .cancelled))
        #expect(throws: ImageError.cancelled) { try frames.frame(at: 3) }
        #expect(frames.frameCount == 4)
    }

    @Test func frameCountAndTotalPixelsAreCheckedBeforeAnyFrameIsDecoded() {
        var options = DecodeOptions()
        options.maxFrameCount = 10
        #expect(throws: ImageError.decodeBudgetExceeded(.frameCount, value: 11, limit: 10)) {
            try Image.decodedAnimation(
                source: DamagedSource(frameCount: 11, damagedFrom: 0), format: .gif,
                options: options)
        }
        options.maxTotalPixelCount = 1_000
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 10 * 200, limit: 1_000)) {
            try Image.decodedAnimation(
                source: DamagedSource(frameCount: 10, damagedFrom: 0, width: 20, height: 10),
                format: .gif, options: options)
        }
        // The first frame alone is within both budgets.
        options.firstFrameOnly = true
        #expect(throws: Never.self) {
            try Image.decodedAnimation(
                source: DamagedSource(frameCount: 11, damagedFrom: 5, width: 20, height: 10),
                format: .gif, options: options)
        }
    }

    @Test func animationWorkCountsFrameRectanglesAndTheCanvas() throws {
        var options = DecodeOptions(maxTotalPixelCount: 1_000_000)
        // A 16x16 screen with frames stored at 10000x10000 (clipped when drawn): the stored rectangles count.
        let huge = Array(repeating: PixelSize(10_000), count: 3)
        #expect(throws: ImageError.self) {
            try options.checkAnimationWork(canvasWidth: 16, canvasHeight: 16, frameSizes: huge)
        }
        try options.checkAnimationWork(
            canvasWidth: 16, canvasHeight: 16, frameSizes: Array(repeating: PixelSize(16), count: 100))
        // Overflowing sizes are over budget, not a crash.
        options.maxTotalPixelCount = .max
        #expect(throws: ImageError.self) {
            try options.checkAnimationWork(canvasWidth: .max, canvasHeight: 2, frameSizes: [PixelSize(1)])
        }
    }

    @Test func watchStopsOnCancellationAndDeadline() throws {
        let token = DecodeCancellation()
        var options = DecodeOptions(cancellation: token)
        try options.startWatch().check()
        token.cancel()
        #expect(options.startWatch().stopReason == .cancelled)
        options.cancellation = nil
        options.timeLimit = .zero
        let watch = options.startWatch()
        Thread.sleep(forTimeInterval: 0.002)
        guard case .decodeBudgetExceeded(.time, _, 0)? = watch.stopReason else {
            Issue.record("expected a time budget error, got \(String(describing: watch.stopReason))")
            return
        }
    }

    @Test func oneFrameCallThatComposesManyFramesStopsAtTheTimeLimit() throws {
        /// Each frame from the tenth on takes at least 2 ms, within any per-frame check; frame 200 needs 191
        /// of them. The first ten take no time of their own, so composing a near frame meets the limit
        /// however late a loaded machine wakes a sleeping thread.
        final class SlowSource: AnimatedFrameSource {
            let canvasWidth = 2, canvasHeight = 2, frameCount = 300, loopCount = 0
            func duration(at index: Int) -> Duration { .milliseconds(100) }
            func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
                if index >= 10 { Thread.sleep(forTimeInterval: 0.002) }
                return ComposedFrame(frame: PixelBuffer(width: 2, height: 2, layout: .gray8), nextBackground: nil)
            }
        }
        let frames = AnimatedFrames(source: SlowSource(), timeLimit: .milliseconds(40))
        do {
            _ = try frames.frame(at: 200)
            Issue.record("composing 191 frames of 2 ms each must pass a 40 ms limit")
        } catch ImageError.decodeBudgetExceeded(.time, _, let limit) {
            #expect(limit == 40)
        }
        // The limit is per call: a near frame is still within it, and the animation is not damaged.
        #expect(try frames.frame(at: 3).pixels.width == 2)
        #expect(frames.frameCount == 300)
    }

    @Test func aCancelledTaskStopsItsDecodeWatch() async {
        let task = Task { () -> ImageError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return DecodeOptions().startWatch().stopReason
        }
        #expect(await task.value == .cancelled)
    }
}
