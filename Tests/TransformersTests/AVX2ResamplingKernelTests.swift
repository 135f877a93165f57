import Testing
@_spi(ResamplingEngines) import WebImageCore
import WebImageTestSupport

/// The fixed-point engine's AVX2 kernels against its portable Swift kernels: the same integer sums, so
/// every byte must be equal, whatever the layout, filter, size (row lengths that leave every remainder
/// of the 16-value vectors), kernel length, block averaging, region or alpha. Runs where the CPU has
/// AVX2 (the other kernels are then the only ones).
@Suite("AVX2 resampling kernels against the Swift kernels", .enabled(if: ResamplingArithmetic.hasAVX2Kernels))
struct AVX2ResamplingKernelTests {
    typealias Pictures = FixedPointResamplingTests

    /// Output widths 1 to 19 (RGB rows of 3 to 57 values), up and down, and a few long kernels.
    static let sizes: [(source: (Int, Int), output: (Int, Int))] =
        (1...19).map { ((61, 47), ($0, max(1, 47 * $0 / 61))) } + [
            ((61, 47), (110, 85)), ((13, 11), (53, 45)), ((1, 1), (7, 5)), ((1, 29), (5, 8)),
            ((29, 1), (8, 3)), ((480, 64), (31, 5)), ((480, 64), (5, 3)),
        ]

    static func equal(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        a.width == b.width && a.height == b.height && a.layout == b.layout && a.bytes == b.bytes
    }

    @Test(arguments: ResamplingFilter.allCases)
    func exactResamplesAreByteIdentical(filter: ResamplingFilter) {
        for layout in PixelLayout.allCases {
            for kind in FixedPointResamplingTests.Picture.allCases {
                for (index, size) in Self.sizes.enumerated() {
                    let source = Pictures.picture(
                        kind, layout, width: size.source.0, height: size.source.1, seed: UInt64(index))
                    let (w, h) = size.output
                    let avx2 = ImageResampler.resample(
                        source, width: w, height: h, filter: filter, arithmetic: .fixedPoint)
                    let swift = ImageResampler.resample(
                        source, width: w, height: h, filter: filter, arithmetic: .portableFixedPoint)
                    #expect(Self.equal(avx2, swift), "\(filter) \(layout) \(kind) \(size)")
                }
            }
        }
    }

    /// Block-averaged thumbnails feed the engine centred or premultiplied averages, not bytes.
    @Test func thumbnailsAreByteIdentical() {
        for layout in PixelLayout.allCases {
            for kind in FixedPointResamplingTests.Picture.allCases {
                let source = Pictures.picture(kind, layout, width: 203, height: 157, seed: 11)
                for (w, h) in [(20, 15), (33, 25), (7, 40), (1, 1), (150, 120), (67, 52)] {
                    let avx2 = ImageResampler.resample(source, width: w, height: h, arithmetic: .fixedPoint)
                    let swift = ImageResampler.resample(source, width: w, height: h, arithmetic: .portableFixedPoint)
                    #expect(Self.equal(avx2, swift), "\(layout) \(kind) \(w)x\(h)")
                }
            }
        }
    }

    @Test func regionsAreByteIdentical() {
        for layout in PixelLayout.allCases {
            let source = Pictures.picture(.structured, layout, width: 61, height: 47, seed: 3)
            for (x, y, w, h) in [(0, 0, 20, 15), (5, 7, 9, 11), (29, 21, 1, 1), (0, 12, 30, 4)] {
                let avx2 = ImageResampler.resample(
                    source, scaledWidth: 30, scaledHeight: 22, region: (x, y, w, h),
                    filter: .lanczos3, arithmetic: .fixedPoint)
                let swift = ImageResampler.resample(
                    source, scaledWidth: 30, scaledHeight: 22, region: (x, y, w, h),
                    filter: .lanczos3, arithmetic: .portableFixedPoint)
                #expect(Self.equal(avx2, swift), "\(layout) (\(x), \(y), \(w), \(h))")
            }
        }
    }

    /// Extreme samples: black and white noise (the largest sums and overshoots) and every alpha level.
    @Test func extremesAreByteIdentical() {
        for layout in PixelLayout.allCases {
            var source = PixelBuffer(width: 97, height: 41, layout: layout)
            var random = SeededGenerator(seed: 21)
            for i in source.bytes.indices { source.bytes[i] = Bool.random(using: &random) ? 255 : 0 }
            if layout == .rgba8 {
                for p in stride(from: 3, to: source.bytes.count, by: 4) { source.bytes[p] = UInt8(p / 4 % 256) }
            }
            for (w, h) in [(45, 19), (96, 40), (13, 7), (200, 90)] {
                let avx2 = ImageResampler.resample(
                    source, width: w, height: h, filter: .lanczos3, arithmetic: .fixedPoint)
                let swift = ImageResampler.resample(
                    source, width: w, height: h, filter: .lanczos3, arithmetic: .portableFixedPoint)
                #expect(Self.equal(avx2, swift), "\(layout) \(w)x\(h)")
            }
        }
    }
}
