import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

/// Image sequences made by avifenc, checked frame by frame against avifdec `--index`.
@Suite("AVIF sequences")
struct AVIFAnimationTests {
    static let frameCount = 4

    /// A lossy 4-frame sequence with durations 50, 200, 200, 200 ms (avifenc's `--duration` applies to
    /// the files after it).
    static func sequence(_ tool: AVIFTool, layout: PixelLayout = .rgb8) throws -> Data {
        var arguments = ["-s", "10", "--min", "20", "--max", "30", "--timescale", "100", "--duration", "5"]
        for index in 0..<frameCount {
            if index == 1 { arguments += ["--duration", "20"] }
            arguments.append(
                try tool.png(
                    SyntheticPicture.make(width: 48, height: 32, layout: layout, phase: index * 40),
                    name: "frame\(index).png"))
        }
        return try tool.avifenc([], arguments)
    }

    @Test(
        "every frame matches avifdec's, with its duration; frames are decoded lazily",
        arguments: [PixelLayout.rgb8, .rgba8])
    func framesMatchAvifdec(layout: PixelLayout) throws {
        let tool = try AVIFTool()
        let avif = try Self.sequence(tool, layout: layout)
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        let animation = try #require(image.animation)
        #expect(image.frameCount == Self.frameCount)
        #expect(image.frameDurations == [50, 200, 200, 200].map { .milliseconds($0) })
        #expect(animation.cachedFrameCount <= 1)
        for index in 0..<Self.frameCount {
            let frame = try image.frame(at: index)
            // avifenc 0.11 gives sequences an alpha track even for opaque PNGs, so only RGBA is certain.
            if layout == .rgba8 { #expect(frame.pixels.layout == .rgba8) }
            #expect(
                SyntheticPicture.maxDifference(frame.pixels, try tool.avifdec(avif, index: index)) == 0,
                "frame \(index)")
        }
    }

    @Test("frames asked for out of order decode from the key frame and still match")
    func outOfOrder() throws {
        let tool = try AVIFTool()
        let avif = try Self.sequence(tool)
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        for index in [3, 1, 2, 0, 3] {
            #expect(
                SyntheticPicture.maxDifference(try image.frame(at: index).pixels, try tool.avifdec(avif, index: index))
                    == 0)
        }
    }

    @Test("firstFrameOnly gives a still of frame 0; a thumbnail animation has the thumbnail's size")
    func firstFrameAndThumbnail() throws {
        let tool = try AVIFTool()
        let avif = try Self.sequence(tool)
        let still = try AVIFCoder().decode(avif, options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated)
        #expect(SyntheticPicture.maxDifference(still.pixels, try tool.avifdec(avif)) == 0)
        let thumbnail = try AVIFCoder().decode(avif, options: DecodeOptions(thumbnailPixelSize: PixelSize(24)))
        #expect(thumbnail.frameCount == Self.frameCount)
        #expect(try thumbnail.frame(at: 2).pixels.width == 24)
    }

    @Test("frame count and total work over budget are refused from the header")
    func budgets() throws {
        let avif = try Self.sequence(try AVIFTool())
        #expect(throws: ImageError.decodeBudgetExceeded(.frameCount, value: 4, limit: 3)) {
            try AVIFCoder().decode(avif, options: DecodeOptions(maxFrameCount: 3))
        }
        // 4 frames x (canvas + frame) of 48x32 = 12,288 pixels of work.
        do {
            _ = try AVIFCoder().decode(avif, options: DecodeOptions(maxTotalPixelCount: 10_000))
            Issue.record("a sequence over the work budget decoded")
        } catch {
            guard case .decodeBudgetExceeded(.totalPixels, _, 10_000) = error else {
                Issue.record("expected the total-pixels budget, got \(error)")
                return
            }
        }
        // Only frame 0 counts with firstFrameOnly.
        #expect(throws: Never.self) {
            try AVIFCoder().decode(avif, options: DecodeOptions(firstFrameOnly: true, maxFrameCount: 1))
        }
    }
}
