import Foundation
import Testing

@testable import WebImageCore

@Suite("Pixels: resampling, orientation, layouts")
struct PixelTests {
    func gradient(width: Int, height: Int, layout: PixelLayout) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<layout.bytesPerPixel {
                    bytes.append(UInt8((x * 7 + y * 13 + c * 50) % 256))
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    @Test(arguments: PixelLayout.allCases)
    func aConstantImageStaysConstantAtAnySize(layout: PixelLayout) {
        let source = PixelBuffer(
            width: 37, height: 23, layout: layout,
            bytes: [UInt8](repeating: 200, count: 37 * 23 * layout.bytesPerPixel))
        for (w, h) in [(1, 1), (5, 3), (36, 22), (37, 23), (80, 50)] {
            let out = ImageResampler.resample(source, width: w, height: h)
            #expect(out.width == w && out.height == h)
            #expect(out.bytes.allSatisfy { $0 == 200 }, "\(layout) \(w)x\(h)")
        }
    }

    @Test func halvingAveragesEachTwoByTwoBlock() {
        let source = PixelBuffer(width: 4, height: 2, layout: .gray8, bytes: [0, 100, 10, 20, 50, 50, 30, 40])
        let out = ImageResampler.resample(source, width: 2, height: 1, filter: .box)
        #expect(out.bytes == [50, 25])
    }

    @Test func fractionalScalingWeightsPartialPixels() {
        // 3 -> 2: each output pixel covers 1.5 source pixels.
        let source = PixelBuffer(width: 3, height: 1, layout: .gray8, bytes: [0, 90, 180])
        let out = ImageResampler.resample(source, width: 2, height: 1, filter: .box)
        #expect(out.bytes == [30, 150])
    }

    @Test func transparentPixelsDoNotBleedTheirColor() {
        // An opaque red pixel next to a transparent *green* one: the average stays pure red, half transparent.
        let source = PixelBuffer(width: 2, height: 1, layout: .rgba8, bytes: [255, 0, 0, 255, 0, 255, 0, 0])
        for filter in ResamplingFilter.allCases where filter != .nearest {
            let out = ImageResampler.resample(source, width: 1, height: 1, filter: filter)
            #expect(out.bytes == [255, 0, 0, 128], "\(filter)")
        }
    }

    @Test func streamingRowsGivesTheSameResultAsWholeBuffers() {
        let source = gradient(width: 101, height: 67, layout: .rgb8)
        var sampler = RowDownsampler(sourceWidth: 101, sourceHeight: 67, layout: .rgb8, width: 17, height: 11)
        for y in 0..<67 {
            let row = Array(source.bytes[(y * source.bytesPerRow)..<((y + 1) * source.bytesPerRow)])
            row.withUnsafeBufferPointer { sampler.consume(row: $0) }
        }
        #expect(sampler.isComplete)
        #expect(sampler.finish() == ImageResampler.resample(source, width: 17, height: 11))
    }

    @Test func thumbnailSizeFitsInsideAndNeverUpscales() {
        let fit = ImageResampler.thumbnailSize(
            width: 4000, height: 3000, limit: PixelSize(256), preserveAspectRatio: true)
        #expect(fit == PixelSize(width: 256, height: 192))
        let fill = ImageResampler.thumbnailSize(
            width: 4000, height: 3000, limit: PixelSize(256), preserveAspectRatio: false)
        #expect(fill == PixelSize(width: 256, height: 256))
        let small = ImageResampler.thumbnailSize(
            width: 100, height: 50, limit: PixelSize(256), preserveAspectRatio: true)
        #expect(small == PixelSize(width: 100, height: 50))
    }

    /// Each orientation maps the stored 3x2 image [a b c / d e f] to the upright picture EXIF describes.
    @Test(arguments: ImageOrientation.allCases)
    func orientationTurnsPixelsUpright(orientation: ImageOrientation) {
        let stored = PixelBuffer(width: 3, height: 2, layout: .gray8, bytes: [1, 2, 3, 4, 5, 6])
        let expected: [UInt8] =
            switch orientation {
            case .up: [1, 2, 3, 4, 5, 6]
            case .upMirrored: [3, 2, 1, 6, 5, 4]
            case .down: [6, 5, 4, 3, 2, 1]
            case .downMirrored: [4, 5, 6, 1, 2, 3]
            case .leftMirrored: [1, 4, 2, 5, 3, 6]
            case .right: [4, 1, 5, 2, 6, 3]
            case .rightMirrored: [6, 3, 5, 2, 4, 1]
            case .left: [3, 6, 2, 5, 1, 4]
            }
        let upright = stored.applyingOrientation(orientation)
        #expect(upright.bytes == expected)
        #expect(upright.width == (orientation.swapsDimensions ? 2 : 3))
    }

    @Test func layoutConversionKeepsColorsAndAlpha() {
        let rgb = PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: [255, 0, 0])
        #expect(rgb.converted(to: .rgba8).bytes == [255, 0, 0, 255])
        #expect(rgb.converted(to: .gray8).bytes == [76])
        let padded = PixelBuffer(width: 1, height: 2, layout: .gray8, bytesPerRow: 4, bytes: [9, 0, 0, 0, 8, 0, 0, 0])
        #expect(padded.packed().bytes == [9, 8])
    }
}
