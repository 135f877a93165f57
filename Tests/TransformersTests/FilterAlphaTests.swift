import Foundation
import Testing
import WebImageCore
import WebImageTransformers

/// Straight-alpha input, premultiplied filtering: colour never darkens next to transparent pixels, and
/// animations are filtered frame by frame.
@Suite struct FilterAlphaTests {
    /// White opaque pixels on the left, transparent black on the right.
    private func whiteBesideTransparentBlack(width: Int = 40, height: Int = 12) -> PixelBuffer {
        var bytes: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width { bytes += x < width / 2 ? [255, 255, 255, 255] : [0, 0, 0, 0] }
        }
        return PixelBuffer(width: width, height: height, layout: .rgba8, bytes: bytes)
    }

    /// Blurring straight alpha would pull the white towards black where it meets the transparent pixels.
    @Test(arguments: [1.0, 3.0, 8.0])
    func blurLeavesNoDarkFringe(sigma: Double) throws {
        let output = try BlurTransformer(sigma: sigma).transformFrame(whiteBesideTransparentBlack())
        var partlyTransparent = 0
        for y in 0..<output.height {
            for x in 0..<output.width {
                let p = output.rgba(x: x, y: y)
                guard p.a > 0 else { continue }
                if p.a < 255 { partlyTransparent += 1 }
                #expect(p.r >= 254 && p.g >= 254 && p.b >= 254, "(\(x), \(y)) is \(p) at sigma \(sigma)")
            }
        }
        #expect(partlyTransparent > 0, "the edge was blurred")
    }

    @Test func sharpenLeavesNoDarkHaloAndKeepsAlpha() throws {
        let input = whiteBesideTransparentBlack()
        let output = try SharpenTransformer(sigma: 2, amount: 3).transformFrame(input)
        for y in 0..<output.height {
            for x in 0..<output.width {
                let p = output.rgba(x: x, y: y)
                #expect(p.a == input.rgba(x: x, y: y).a)
                if p.a > 0 { #expect(p.r == 255 && p.g == 255 && p.b == 255, "(\(x), \(y)) is \(p)") }
            }
        }
    }

    @Test func flatImagesStayFlatUpToTheEdges() throws {
        for layout in PixelLayout.allCases {
            let bytes = [UInt8](repeating: 77, count: 33 * 21 * layout.bytesPerPixel)
            let flat = PixelBuffer(width: 33, height: 21, layout: layout, bytes: bytes)
            for sigma in [0.5, 4, 12, 150] {
                #expect(try BlurTransformer(sigma: sigma).transformFrame(flat) == flat, "\(layout) sigma \(sigma)")
            }
        }
    }

    @Test func tinyAndPaddedBuffersWork() throws {
        let one = PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: [10, 20, 30])
        #expect(try BlurTransformer(sigma: 20).transformFrame(one).bytes == [10, 20, 30])
        // Rows padded to 8 bytes: the output is packed and the padding never read as pixels.
        let padded = PixelBuffer(
            width: 2, height: 2, layout: .rgb8, bytesPerRow: 8,
            bytes: [9, 9, 9, 9, 9, 9, 0, 0, 9, 9, 9, 9, 9, 9, 255, 255])
        for transformer in [
            try BlurTransformer(sigma: 1) as any FrameTransformer, try BlurTransformer(sigma: 9),
            try SharpenTransformer(sigma: 1), try ColorAdjustTransformer(brightness: 1),
        ] {
            let output = try transformer.transformFrame(padded)
            #expect(output.bytesPerRow == 6)
            #expect(Set(output.bytes).count == 1, "\(transformer.transformerKey): \(output.bytes)")
        }
    }

    @Test func grayImagesTakeAColourTint() throws {
        let gray = PixelBuffer(width: 2, height: 1, layout: .gray8, bytes: [0, 255])
        let red = try TintTransformer(color: RGBAColor(red: 255, green: 0, blue: 0), mode: .multiply).transformFrame(
            gray)
        #expect(red.layout == .rgb8 && red.bytes == [0, 0, 0, 255, 0, 0])
        let half = try TintTransformer(color: RGBAColor(red: 128, green: 128, blue: 128)).transformFrame(gray)
        #expect(half.layout == .gray8 && half.bytes == [128, 128])
    }

    /// An animation comes back animated, each frame blurred when it is asked for.
    @Test func animatedFramesAreFilteredOneByOne() throws {
        let frames = (0..<3).map { index in
            PixelBuffer(
                width: 8, height: 8, layout: .gray8,
                bytes: (0..<64).map { $0 % 8 < 4 ? UInt8(index * 50) : 255 })
        }
        let animation = AnimatedFrames(source: ListedFrames(frames: frames))
        let image = try Image(animation: animation, format: .gif)
        let blur = try BlurTransformer(sigma: 1.5)
        let output = try blur.transformed(image)
        #expect(output.frameCount == 3)
        for index in 0..<3 {
            #expect(try output.frame(at: index).pixels == blur.transformFrame(frames[index]))
        }
    }
}

/// An animation made of given frames, each shown 0.1 s.
private struct ListedFrames: AnimatedFrameSource {
    let frames: [PixelBuffer]
    var canvasWidth: Int { frames[0].width }
    var canvasHeight: Int { frames[0].height }
    var frameCount: Int { frames.count }
    var loopCount: Int { 0 }
    func duration(at index: Int) -> Duration { .milliseconds(100) }
    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        ComposedFrame(frame: frames[index], nextBackground: nil)
    }
}
