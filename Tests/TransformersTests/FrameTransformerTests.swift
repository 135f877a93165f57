import Foundation
import Testing
import WebImageCore
import WebImageTransformers

/// Counts the frames an animation composes, so a test can see what is composed when.
private final class CountingSource: AnimatedFrameSource {
    let canvasWidth = 4
    let canvasHeight = 2
    let frameCount = 5
    let loopCount = 3
    /// Indexes composed so far, in order.
    let composed = Locked<[Int]>([])

    func duration(at index: Int) -> Duration { .milliseconds(100 * (index + 1)) }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        composed.withLock { $0.append(index) }
        let bytes = [UInt8](repeating: UInt8(index * 10), count: canvasWidth * canvasHeight)
        return ComposedFrame(
            frame: PixelBuffer(
                width: canvasWidth, height: canvasHeight, layout: .gray8,
                bytes: bytes), nextBackground: nil)
    }
}

/// Keeps the left half of a frame and adds one to every byte: the size changes and the content is visible.
private struct LeftHalfPlusOne: FrameTransformer {
    var transformerKey: String { "left-half-plus-one" }
    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let width = pixels.width / 2
        var bytes: [UInt8] = []
        for y in 0..<pixels.height {
            for x in 0..<width { bytes.append(pixels.bytes[y * pixels.bytesPerRow + x] &+ 1) }
        }
        return PixelBuffer(width: width, height: pixels.height, layout: pixels.layout, bytes: bytes)
    }
}

@Suite struct FrameTransformerTests {
    @Test func animatedFramesAreTransformedOnlyWhenAsked() throws {
        let source = CountingSource()
        let image = try Image(animation: AnimatedFrames(source: source), format: .gif)
        let output = try LeftHalfPlusOne().transformed(image)
        #expect(source.composed.withLock { $0 } == [0])
        #expect(output.frameCount == 5)
        #expect(output.loopCount == 3)
        #expect(output.frameDurations == [100, 200, 300, 400, 500].map { .milliseconds($0) })
        #expect(output.width == 2 && output.height == 2)
        #expect(output.pixels.bytes == [1, 1, 1, 1])

        let third = try output.frame(at: 3)
        #expect(third.pixels.bytes == [31, 31, 31, 31])
        #expect(source.composed.withLock { $0 } == [0, 1, 2, 3])
    }

    @Test func stillsAreOrientedBeforeTheyAreTransformed() throws {
        // A 2x1 image stored sideways: orientation .right turns it into 1x2.
        let stored = PixelBuffer(width: 2, height: 1, layout: .gray8, bytes: [10, 20])
        let image = Image(pixels: stored, format: .jpeg, orientation: .right, isOrientationApplied: false)
        let identity = TransformerBlockFrame()
        let output = try identity.transformed(image)
        #expect(output.width == 1 && output.height == 2)
        #expect(output.isOrientationApplied)
        #expect(output.format == .jpeg)
    }
}

/// Returns its input unchanged.
private struct TransformerBlockFrame: FrameTransformer {
    var transformerKey: String { "identity" }
    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer { pixels }
}
