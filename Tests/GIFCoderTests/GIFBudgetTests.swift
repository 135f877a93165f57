import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder
import WebImageTestSupport

/// The decode budgets on hostile GIFs (``HostileFiles``): refused from the file's structure, before
/// any frame is decompressed, with an error naming the budget; deadlines and cancellation stop decodes.
@Suite("GIF decode budgets")
struct GIFBudgetTests {
    let coder = GIFCoder()

    func budget(of error: any Error) -> DecodeBudget? {
        guard case ImageError.decodeBudgetExceeded(let budget, _, _) = error else { return nil }
        return budget
    }

    @Test func endlessTinyFramesStopAtTheFrameCountBudget() throws {
        let data = HostileFiles.manyFramesGIF(frames: 10_000, screen: PixelSize(4000))
        // The walk stops at the first frame over the limit, not at the end of the file.
        #expect(
            throws: ImageError.decodeBudgetExceeded(
                .frameCount, value: DecodeOptions.defaultMaxFrameCount + 1,
                limit: DecodeOptions.defaultMaxFrameCount)
        ) {
            _ = try coder.decode(data, options: DecodeOptions())
        }
        // With room for the frames, their canvases (16 MP each) are over the total-pixel budget.
        #expect { _ = try coder.decode(data, options: DecodeOptions(maxFrameCount: 20_000)) } throws: {
            budget(of: $0) == .totalPixels
        }
        #expect { _ = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(64))) } throws: {
            budget(of: $0) == .frameCount
        }
    }

    @Test func firstFrameOnlyNeedsOnlyFrameZerosBudget() throws {
        let data = HostileFiles.manyFramesGIF(frames: 10_000, screen: PixelSize(500))
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated && still.width == 500 && still.height == 500)
    }

    @Test func hugeFramesClippedToATinyScreenCountTheirStoredRectangles() throws {
        // 40 frames of 4000x4000 on a 16x16 screen: the screen grows to frame 0 (as in Chromium), and
        // each frame counts its canvas and its 16 MP rectangle: 1.28 GP, over the 1 GP budget.
        let data = HostileFiles.clippedHugeFramesGIF(frames: 40, frameSize: PixelSize(4000), screen: PixelSize(16))
        #expect { _ = try coder.decode(data, options: DecodeOptions()) } throws: { budget(of: $0) == .totalPixels }
        // A frame over the per-frame pixel limit is refused by that limit.
        #expect(throws: ImageError.imageTooLarge(width: 4000, height: 4000, limit: 1_000_000)) {
            _ = try coder.decode(data, options: DecodeOptions(maxPixelCount: 1_000_000))
        }
    }

    @Test func firstFrameOnlyOfHugeFramesDecodesFrameZeroAlone() throws {
        // 3000x3000 frames use the full LZW dictionary and then repeat its longest entry (a deferred
        // clear); 30 of them are over the budget, frame 0 alone is not.
        let data = HostileFiles.clippedHugeFramesGIF(frames: 30, frameSize: PixelSize(3000), screen: PixelSize(16))
        let options = DecodeOptions(maxTotalPixelCount: 100_000_000)
        #expect { _ = try coder.decode(data, options: options) } throws: { budget(of: $0) == .totalPixels }
        var firstOnly = options
        firstOnly.firstFrameOnly = true
        let still = try coder.decode(data, options: firstOnly)
        #expect(still.width == 3000 && still.height == 3000)
        // Every pixel is palette entry 0, opaque red: the whole frame decoded.
        let red = UInt32(littleEndian: 0xFF00_00FF)
        #expect(still.pixels.bytes.withUnsafeBytes { $0.bindMemory(to: UInt32.self).allSatisfy { $0 == red } })
    }

    @Test func storedRectanglesCountEvenWhenTheCanvasIsSmall() throws {
        // Frames past the screen's edge: composed onto a 16x16 canvas but 500x500 each when decompressed.
        var fixtureFrames: [GIFFixture.Frame] = [.init(width: 16, height: 16, indices: Array(repeating: 0, count: 256))]
        for _ in 0..<4 {
            fixtureFrames.append(
                .init(x: 20, y: 20, width: 500, height: 500, indices: Array(repeating: 1, count: 250_000)))
        }
        let data = Data(
            GIFFixture(width: 16, height: 16, palette: [[0, 0, 0], [255, 255, 255]], frames: fixtureFrames).bytes)
        // 5 canvases (1,280 px) + 256 + 4 x 250,000: over a budget of 900,000, within 1,100,000.
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 1_001_536, limit: 900_000)) {
            _ = try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 900_000))
        }
        let image = try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 1_100_000))
        #expect(image.frameCount == 5 && image.width == 16)
    }

    @Test func cancellationStopsTheDecodeAndLaterFrames() throws {
        let data = HostileFiles.bandedAnimationGIF(frames: 4, size: PixelSize(64))
        let cancelled = DecodeCancellation()
        cancelled.cancel()
        #expect(throws: ImageError.cancelled) {
            _ = try coder.decode(data, options: DecodeOptions(cancellation: cancelled))
        }

        let token = DecodeCancellation()
        let image = try coder.decode(data, options: DecodeOptions(cancellation: token))
        token.cancel()
        // Frame 1 is composed lazily under the same options: it stops, and is not taken for damage.
        #expect(throws: ImageError.cancelled) { _ = try image.frame(at: 1) }
        #expect(image.frameCount == 4)
    }

    @Test func aSpentTimeLimitStopsTheDecode() throws {
        let data = HostileFiles.bandedAnimationGIF(frames: 4, size: PixelSize(64))
        #expect { _ = try coder.decode(data, options: DecodeOptions(timeLimit: .zero)) } throws: {
            budget(of: $0) == .time
        }
    }
}
