import Testing
@_spi(ResamplingEngines) import WebImageCore
import WebImageTestSupport

/// The fixed-point engine (the default) against the Float engine it replaced: every byte within one level,
/// on random and structured images, every filter, up and down, odd sizes, one-pixel images and edges,
/// premultiplied alpha, regions and block-averaged thumbnails. For RGBA a colour is compared wherever the
/// Float engine's alpha is not 0 (under alpha 0 either engine's colour is a leftover of the division).
@Suite("Fixed-point resampling against the Float engine")
struct FixedPointResamplingTests {
    /// Source and output sizes: down by about 3.3, 2 and 1.3, one axis only, up by about 1.8 and 4,
    /// to and from one pixel, odd sizes.
    static let sizes: [(source: (Int, Int), output: (Int, Int))] = [
        ((61, 47), (18, 14)), ((61, 47), (30, 23)), ((61, 47), (47, 36)), ((61, 47), (61, 9)),
        ((61, 47), (110, 85)), ((13, 11), (53, 45)), ((61, 47), (1, 1)), ((1, 1), (7, 5)),
        ((1, 29), (5, 8)), ((29, 1), (8, 3)), ((2, 3), (3, 2)),
    ]

    enum Picture: CaseIterable {
        /// Every byte random: the worst case for ringing and for low alpha next to high.
        case noise
        /// Ramps, a hard-edged bright square, a one-pixel line; for RGBA an opaque shape on transparent
        /// black with an anti-aliased edge and a faint (alpha 1...12) shadow.
        case structured
    }

    static func picture(_ kind: Picture, _ layout: PixelLayout, width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SeededGenerator(seed: seed)
        let channels = layout.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * channels
                switch kind {
                case .noise:
                    for c in 0..<channels { bytes[o + c] = UInt8.random(in: 0...255, using: &random) }
                case .structured:
                    for c in 0..<channels {
                        var v = (x * 7 + y * 3 + c * 50) % 256
                        if (width / 4..<width / 2).contains(x) && (height / 4..<height / 2).contains(y) {
                            v = 255 - c * 30
                        }
                        if x == width * 2 / 3 { v = 0 }
                        bytes[o + c] = UInt8(v)
                    }
                    if channels == 4 {
                        let dx = Double(x) - Double(width) / 2, dy = Double(y) - Double(height) / 2
                        let r = (dx * dx + dy * dy).squareRoot(), edge = Double(min(width, height)) / 3
                        let alpha =
                            r < edge
                            ? 255
                            : (r < edge + 2 ? 255 * (edge + 2 - r) / 2 : (r < edge + 8 ? 12 - (r - edge - 2) * 2 : 0))
                        bytes[o + 3] = UInt8(max(0, min(255, alpha.rounded())))
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// The largest difference between two outputs, colour under the Float alpha 0 left out.
    static func worstDifference(_ fixed: PixelBuffer, _ float: PixelBuffer) -> Int {
        #expect(fixed.width == float.width && fixed.height == float.height)
        let channels = fixed.layout.bytesPerPixel
        var worst = 0
        for p in stride(from: 0, to: float.bytes.count, by: channels) {
            for c in 0..<channels {
                if channels == 4 && c < 3 && float.bytes[p + 3] == 0 { continue }
                worst = max(worst, abs(Int(fixed.bytes[p + c]) - Int(float.bytes[p + c])))
            }
        }
        return worst
    }

    @Test(arguments: ResamplingFilter.allCases)
    func everyByteWithinOneLevelOfFloat(filter: ResamplingFilter) {
        for layout in PixelLayout.allCases {
            for kind in Picture.allCases {
                for (index, size) in Self.sizes.enumerated() {
                    let source = Self.picture(
                        kind, layout, width: size.source.0, height: size.source.1, seed: UInt64(index))
                    let (w, h) = size.output
                    #expect(
                        filter == .nearest
                            || ImageResampler.fixedPointStaysWithinOneLevel(
                                sourceWidth: source.width, sourceHeight: source.height, layout: layout, width: w,
                                height: h,
                                filter: filter),
                        "\(filter) \(layout) \(size) runs in Float")
                    let fixed = ImageResampler.resample(
                        source, width: w, height: h, filter: filter, arithmetic: .fixedPoint)
                    let float = ImageResampler.resample(source, width: w, height: h, filter: filter, arithmetic: .float)
                    let worst = Self.worstDifference(fixed, float)
                    #expect(worst <= 1, "\(filter) \(layout) \(kind) \(size): \(worst) levels")
                }
            }
        }
    }

    /// Large reductions have long kernels (the most rounded coefficients per output): still within a level.
    @Test(arguments: [PixelLayout.rgb8, .rgba8])
    func largeReductionsWithinOneLevel(layout: PixelLayout) {
        let source = Self.picture(.noise, layout, width: 480, height: 64, seed: 7)
        for filter in [ResamplingFilter.lanczos3, .catmullRom, .box] {
            let fixed = ImageResampler.resample(source, width: 31, height: 5, filter: filter, arithmetic: .fixedPoint)
            let float = ImageResampler.resample(source, width: 31, height: 5, filter: filter, arithmetic: .float)
            #expect(Self.worstDifference(fixed, float) <= 1, "\(filter) \(layout)")
        }
    }

    @Test func regionsWithinOneLevel() {
        for layout in PixelLayout.allCases {
            let source = Self.picture(.structured, layout, width: 61, height: 47, seed: 3)
            for (x, y, w, h) in [(0, 0, 20, 15), (5, 7, 9, 11), (29, 21, 1, 1), (0, 12, 30, 4)] {
                let fixed = ImageResampler.resample(
                    source, scaledWidth: 30, scaledHeight: 22, region: (x, y, w, h),
                    filter: .lanczos3, arithmetic: .fixedPoint)
                let float = ImageResampler.resample(
                    source, scaledWidth: 30, scaledHeight: 22, region: (x, y, w, h),
                    filter: .lanczos3, arithmetic: .float)
                #expect(Self.worstDifference(fixed, float) <= 1, "\(layout) (\(x), \(y), \(w), \(h))")
            }
        }
    }

    /// Thumbnails block-average first (in integers, then 7 fractional bits), then filter; a thumbnail too
    /// close to the source size to average goes straight to the filter.
    @Test func thumbnailsWithinOneLevel() {
        for layout in PixelLayout.allCases {
            for kind in Picture.allCases {
                let source = Self.picture(kind, layout, width: 203, height: 157, seed: 11)
                for (w, h) in [(20, 15), (33, 25), (7, 40), (1, 1), (150, 120)] {
                    let fixed = ImageResampler.resample(source, width: w, height: h, arithmetic: .fixedPoint)
                    let float = ImageResampler.resample(source, width: w, height: h, arithmetic: .float)
                    #expect(Self.worstDifference(fixed, float) <= 1, "\(layout) \(kind) \(w)x\(h)")
                }
            }
        }
    }

    /// By default, fixed point runs where it measured faster: thumbnails that block-average, and with the
    /// AVX2 kernels every resample its error bound allows.
    @Test func blockAveragingThumbnailsRunInFixedPointByDefault() {
        let hasAVX2 = ResamplingArithmetic.hasAVX2Kernels
        for layout in PixelLayout.allCases {
            let averaging = RowDownsampler(sourceWidth: 203, sourceHeight: 157, layout: layout, width: 33, height: 25)
            let plain = RowDownsampler(sourceWidth: 203, sourceHeight: 157, layout: layout, width: 150, height: 120)
            let plainUsesFixedPoint = plain.usesFixedPoint
            #expect(averaging.usesFixedPoint, "\(layout)")
            #expect(plainUsesFixedPoint == hasAVX2, "\(layout)")
        }
    }

    /// Rows streamed one by one give exactly the whole-buffer resample.
    @Test func streamedRowsEqualTheWholeBuffer() {
        for layout in PixelLayout.allCases {
            let source = Self.picture(.structured, layout, width: 203, height: 157, seed: 5)
            var sampler = RowDownsampler(sourceWidth: 203, sourceHeight: 157, layout: layout, width: 37, height: 29)
            let rowBytes = 203 * layout.bytesPerPixel
            source.bytes.withUnsafeBufferPointer { all in
                for y in 0..<157 {
                    sampler.consume(row: UnsafeBufferPointer(rebasing: all[(y * rowBytes)..<((y + 1) * rowBytes)]))
                }
            }
            #expect(sampler.finish() == ImageResampler.resample(source, width: 37, height: 29), "\(layout)")
        }
    }

    /// A pixel whose alpha is too low for the error bound is computed again in Float: exactly the Float
    /// engine's bytes, colour included, however faint.
    @Test func faintPixelsAreTheFloatEnginesExactly() {
        var source = PixelBuffer(width: 40, height: 30, layout: .rgba8)
        var random = SeededGenerator(seed: 9)
        for p in stride(from: 0, to: source.bytes.count, by: 4) {
            for c in 0..<3 { source.bytes[p + c] = UInt8.random(in: 0...255, using: &random) }
            source.bytes[p + 3] = UInt8.random(in: 0...3, using: &random)
        }
        let fixed = ImageResampler.resample(source, width: 17, height: 13, filter: .lanczos3, arithmetic: .fixedPoint)
        let float = ImageResampler.resample(source, width: 17, height: 13, filter: .lanczos3, arithmetic: .float)
        for p in stride(from: 0, to: float.bytes.count, by: 4) where float.bytes[p + 3] > 0 {
            #expect(Array(fixed.bytes[p..<(p + 4)]) == Array(float.bytes[p..<(p + 4)]), "pixel \(p / 4)")
        }
    }
}
