import Foundation
import Testing
import WebImageCore

/// Values a user can pass to Core's public initializers and accessors never stop the process: they are
/// refused with ``ImageError/invalidParameter(name:reason:)`` or given a documented safe meaning.
@Suite struct PublicInitializerSafetyTests {
    static func frame(
        _ width: Int, _ height: Int, layout: PixelLayout = .gray8, duration: Duration = .milliseconds(100)
    ) -> ImageFrame {
        ImageFrame(pixels: PixelBuffer(width: width, height: height, layout: layout), duration: duration)
    }

    static func isInvalidParameter(_ error: any Error, named name: String) -> Bool {
        guard case ImageError.invalidParameter(let got, let reason) = error else { return false }
        return got == name && !reason.isEmpty
    }

    @Test func anEmptyFrameListMakesAnEmptyStillOrAnError() throws {
        let empty = Image(frames: [])
        #expect(!empty.isAnimated && empty.width == 0 && empty.height == 0)
        #expect { try Image(validatingFrames: []) } throws: { Self.isInvalidParameter($0, named: "frames") }
    }

    @Test func checkedFramesRefuseMismatchedSizesDurationsAndLoopCounts() throws {
        let good = try Image(validatingFrames: [Self.frame(2, 2), Self.frame(2, 2)], loopCount: 2)
        #expect(good.frameCount == 2 && good.loopCount == 2)
        let bad: [([ImageFrame], Int)] = [
            ([Self.frame(2, 2), Self.frame(3, 2)], 0),
            ([Self.frame(2, 2), Self.frame(2, 2, layout: .rgba8)], 0),
            ([Self.frame(2, 2), Self.frame(2, 2, duration: .seconds(-1))], 0),
            ([Self.frame(2, 2)], -1),
        ]
        for (frames, loops) in bad {
            #expect(throws: ImageError.self) { try Image(validatingFrames: frames, loopCount: loops) }
        }
    }

    @Test func framesOutsideTheImageThrow() throws {
        let still = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8))
        #expect(try still.frame(at: 0).pixels.width == 1)
        #expect { try still.frame(at: 1) } throws: { Self.isInvalidParameter($0, named: "index") }
        let animated = Image(frames: [Self.frame(1, 1), Self.frame(1, 1)])
        for index in [-1, 2, Int.max] {
            #expect { try animated.frame(at: index) } throws: { Self.isInvalidParameter($0, named: "index") }
        }
    }

    /// A custom frame source that reports a negative frame count.
    private struct NegativeSource: AnimatedFrameSource {
        var canvasWidth: Int { 1 }
        var canvasHeight: Int { 1 }
        var frameCount: Int { -3 }
        var loopCount: Int { 0 }
        func duration(at index: Int) -> Duration { .zero }
        func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
            ComposedFrame(frame: PixelBuffer(width: 1, height: 1, layout: .gray8), nextBackground: nil)
        }
    }

    @Test func aSourceWithANegativeFrameCountHasNoFrames() {
        let frames = AnimatedFrames(source: NegativeSource())
        #expect(frames.frameCount == 0)
        #expect(throws: ImageError.self) { try Image(animation: frames, format: .gif) }
    }

    @Test func checkedPixelBuffersRefuseBadSizesAndShortBytes() throws {
        let good = try PixelBuffer(width: 2, height: 2, layout: .rgb8, validating: [UInt8](repeating: 1, count: 12))
        #expect(good.bytesPerRow == 6)
        let cases: [(Int, Int, PixelLayout, Int?, Int, String)] = [
            (-1, 2, .gray8, nil, 10, "size"),
            (2, -1, .gray8, nil, 10, "size"),
            (4, 1, .rgba8, 8, 100, "bytesPerRow"),
            (Int.max, 1, .rgba8, nil, 0, "bytesPerRow"),
            (Int.max / 2, 4, .gray8, nil, 0, "bytes"),
            (3, 3, .rgb8, nil, 26, "bytes"),
        ]
        for (width, height, layout, stride, count, name) in cases {
            #expect {
                try PixelBuffer(
                    width: width, height: height, layout: layout, bytesPerRow: stride,
                    validating: [UInt8](repeating: 0, count: count))
            } throws: { Self.isInvalidParameter($0, named: name) }
        }
    }

    @Test func resizingWithAZeroSideKeepsTheAspectRatio() throws {
        let image = Image(pixels: PixelBuffer(width: 300, height: 200, layout: .gray8))
        let byHeight = try #require(
            StretchTransformer(size: PixelSize(width: 0, height: 64)).transform(image, forKey: ""))
        #expect(byHeight.width == 96 && byHeight.height == 64)
        let byWidth = try #require(
            StretchTransformer(size: PixelSize(width: 30, height: 0)).transform(image, forKey: ""))
        #expect(byWidth.width == 30 && byWidth.height == 20)
        for size in [PixelSize(0), PixelSize(width: -5, height: 10), PixelSize(width: 0, height: Int.max)] {
            #expect(StretchTransformer(size: size).transform(image, forKey: "") == nil)
        }
        #expect(StretchTransformer(size: PixelSize(10)).transform(Image(frames: []), forKey: "") == nil)
    }
}
