import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// The decode budgets on APNG: frame count from acTL, total work from every fcTL's rectangle, checked
/// before any frame is decoded; `firstFrameOnly` needs only frame 0's budget.
@Suite("APNG budgets")
struct APNGBudgetTests {
    let coder = APNGCoder()

    func budget(of error: ImageError) -> DecodeBudget? {
        if case .decodeBudgetExceeded(let budget, _, _) = error { return budget }
        return nil
    }

    @Test func tooManyFramesAreRefusedFromTheHeader() throws {
        let data = HostileFiles.manyFramesAPNG(
            frames: DecodeOptions.defaultMaxFrameCount + 1,
            canvas: PixelSize(width: 4, height: 4))
        #expect(
            throws: ImageError.decodeBudgetExceeded(
                .frameCount, value: DecodeOptions.defaultMaxFrameCount + 1,
                limit: DecodeOptions.defaultMaxFrameCount)
        ) {
            try coder.decode(data, options: DecodeOptions())
        }
        #expect(throws: ImageError.self) { try coder.makeFrameSource(for: data, options: DecodeOptions()) }
        // One frame is all firstFrameOnly decodes.
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated && still.width == 4)
    }

    @Test func fullFramesOverTheTotalPixelBudgetAreRefusedBeforeDecoding() throws {
        // 5,000 frames of 400x400: 5,000 x (canvas + frame) = 1.6 GP, over the 1 GP default.
        let data = HostileFiles.manyFramesAPNG(frames: 5_000, canvas: PixelSize(width: 400, height: 400))
        do {
            _ = try coder.decode(data, options: DecodeOptions())
            Issue.record("decoded")
        } catch {
            #expect(budget(of: error) == .totalPixels, "\(error)")
        }
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(still.width == 400 && still.pixels.converted(to: .rgba8).bytes.prefix(4) == [255, 0, 0, 255])
    }

    @Test func everyFrameRectangleCountsWithItsCanvas() throws {
        let data = HostileFiles.manyFramesAPNG(frames: 3, canvas: PixelSize(width: 10, height: 10))
        // Each frame costs 100 (canvas) + 100 (its rectangle): 600 in all.
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 600, limit: 599)) {
            try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 599))
        }
        #expect(try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 600)).frameCount == 3)
        #expect(
            try !coder.decode(data, options: DecodeOptions(firstFrameOnly: true, maxTotalPixelCount: 200)).isAnimated)
        #expect(throws: ImageError.decodeBudgetExceeded(.frameCount, value: 3, limit: 2)) {
            try coder.decode(data, options: DecodeOptions(maxFrameCount: 2))
        }
    }

    @Test func anAllowedLargeAnimationDecodesLazily() throws {
        let data = HostileFiles.manyFramesAPNG(frames: 2_000, canvas: PixelSize(width: 64, height: 64))
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.frameCount == 2_000)
        let animation = try #require(image.animation)
        #expect(try image.frame(at: 1_999).pixels.converted(to: .rgba8).bytes.prefix(4) == [0, 0, 255, 255])
        #expect(animation.cachedFrameCount <= AnimatedFrames.defaultCachedFrameLimit + 1)
    }
}

/// Deadlines and cancellation: checked at the start of each decode call, between libpng's rows, and
/// before each lazily composed APNG frame.
@Suite("PNG deadlines and cancellation")
struct PNGDeadlineTests {
    @Test func aCancelledTokenStopsTheDecode() throws {
        let data = HostileFiles.pngWithExtraCompressedData(size: PixelSize(width: 64, height: 64))
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try PNGCoder().decode(data, options: DecodeOptions(cancellation: token))
        }
        #expect(throws: ImageError.cancelled) {
            let decoder = PNGCoder().makeIncrementalDecoder(options: DecodeOptions(cancellation: token))
            try decoder.append(data)
        }
    }

    @Test func aCancelledTaskStopsTheDecode() async throws {
        let data = HostileFiles.pngWithExtraCompressedData(size: PixelSize(width: 64, height: 64))
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try PNGCoder().decode(data, options: DecodeOptions())
        }
        task.cancel()
        let result = await task.result
        #expect(throws: ImageError.cancelled) { try result.get() }
    }

    /// A large image with a tiny time limit stops inside libpng (between rows), with the time budget
    /// named and rows left undecoded.
    @Test func theTimeLimitStopsInsideLibpng() throws {
        let size = PixelSize(width: 2_000, height: 2_000)
        let data = HostileFiles.pngWithExtraCompressedData(size: size, extraRows: 0)
        let options = DecodeOptions(timeLimit: .microseconds(200))
        let limited = PNGCoder().makeIncrementalDecoder(options: options)
        do {
            try limited.append(data)
            _ = try limited.finish()
            Issue.record("a 4 MP decode finished within 200 µs")
        } catch {
            guard case .decodeBudgetExceeded(.time, _, _) = error else { Issue.record("\(error)"); return }
        }
        // Whatever was decoded before the stop is short of the whole image.
        if let partial = limited.partialImage() { #expect(partial.isIncomplete) }
    }

    /// Cancelling after the decode stops lazy frames with `.cancelled`, which is not damage: the
    /// animation keeps its frame count.
    @Test func cancellingStopsLazyFramesWithoutEndingTheAnimation() throws {
        let data = HostileFiles.manyFramesAPNG(frames: 5, canvas: PixelSize(width: 8, height: 8))
        let token = DecodeCancellation()
        let image = try APNGCoder().decode(data, options: DecodeOptions(cancellation: token))
        token.cancel()
        #expect(throws: ImageError.cancelled) { try image.frame(at: 3) }
        #expect(image.frameCount == 5)
    }
}

extension PNGDeadlineTests {
    /// Parsing the chunks of a long animation checks the deadline too (here, already past).
    @Test func parsingManyChunksChecksTheDeadline() throws {
        let data = HostileFiles.manyFramesAPNG(frames: 2_000, canvas: PixelSize(width: 4, height: 4))
        do {
            _ = try APNGCoder().decode(data, options: DecodeOptions(timeLimit: .zero))
            Issue.record("decoded past its deadline")
        } catch {
            guard case .decodeBudgetExceeded(.time, _, _) = error else { Issue.record("\(error)"); return }
        }
    }
}
