import Foundation
import Testing
import WebImageCore
import WebImageTransformers

/// The filters against filter-reference.tsv (scripts/reference/filter-reference.py): true gaussians in float64,
/// Pillow's GaussianBlur, UnsharpMask and convert("L"), and NumPy's W3C blend and adjustment formulas.
@Suite struct FilterReferenceTests {
    /// The reference case `name` on `layout`, and our output on the same input.
    private func compare(
        _ name: String, _ layout: PixelLayout,
        _ transformer: some FrameTransformer
    ) throws -> (max: Int, mean: Double, differences: [Int]) {
        let reference = try #require(
            FilterTestImages.reference["\(name) \(layout.rawValue)"],
            "\(name) \(layout.rawValue) missing from filter-reference.tsv")
        let output = try transformer.transformFrame(FilterTestImages.image(layout))
        return FilterTestImages.difference(output, reference.expected)
    }

    /// Below sigma 5 the sampled kernel (3 sigmas each side) is within one level of the true gaussian
    /// (which reaches 4 sigmas), on average well under a tenth.
    @Test(arguments: [(0.8, PixelLayout.rgb8), (1.5, .rgb8), (3, .rgb8), (2, .rgba8)])
    func convolutionBlurMatchesATrueGaussian(sigma: Double, layout: PixelLayout) throws {
        let d = try compare("blur:\(FilterReferenceTests.text(sigma))", layout, BlurTransformer(sigma: sigma))
        #expect(d.max <= 1 && d.mean <= 0.1, "sigma \(sigma) \(layout): max \(d.max), mean \(d.mean)")
    }

    /// From sigma 5 the recursive filter is within 3 levels of the true gaussian, 0.6 on average. For RGBA,
    /// un-premultiplying divides that error by alpha: in pixels at least a quarter opaque the colour is
    /// within 4 levels, 1 on average (a NumPy model of the same filter gives 4 and 0.71 there).
    @Test(arguments: [(10, PixelLayout.rgb8, 3, 0.6), (24, .rgb8, 3, 0.6), (6, .gray8, 3, 0.6), (8, .rgba8, 4, 1.0)])
    func recursiveBlurMatchesATrueGaussian(sigma: Double, layout: PixelLayout, maximum: Int, mean: Double) throws {
        let reference = try #require(
            FilterTestImages.reference["blur:\(FilterReferenceTests.text(sigma)) \(layout.rawValue)"])
        let output = try BlurTransformer(sigma: sigma).transformFrame(FilterTestImages.image(layout))
        let d = FilterTestImages.difference(output, reference.expected, minimumAlphaForColour: 64)
        #expect(d.max <= maximum && d.mean <= mean, "sigma \(sigma) \(layout): max \(d.max), mean \(d.mean)")
    }

    /// Sigma 120 runs six passes of sigma 49 (one Float pass would be unstable there). On this 48x40 image the
    /// true gaussian is almost all repeated edge, and each pass repeats its own edge, so the two differ by up
    /// to 19 levels, 8 on average: this checks that the passes stay stable and near the truth, not the
    /// interior accuracy the other cases check.
    @Test func largeSigmaRunsInStablePasses() throws {
        let d = try compare("blur:120", .rgb8, BlurTransformer(sigma: 120))
        #expect(d.max <= 20 && d.mean <= 9, "max \(d.max), mean \(d.mean)")
    }

    /// Pillow approximates the gaussian with three box passes, so it is a looser check. At sigma 3 we are
    /// within 6 levels of it, 1 on average; at sigma 10 its boxes differ from a true gaussian by up to 20
    /// levels on this small image (the script's true gaussian and Pillow disagree as much), 2 on average.
    @Test(arguments: [(3.0, 6, 1.0), (10.0, 24, 2.5)])
    func blurIsCloseToPillowsGaussianBlur(sigma: Double, maximum: Int, mean: Double) throws {
        let d = try compare("pillow-blur:\(FilterReferenceTests.text(sigma))", .rgb8, BlurTransformer(sigma: sigma))
        #expect(d.max <= maximum && d.mean <= mean, "sigma \(sigma): max \(d.max), mean \(d.mean)")
    }

    /// The unsharp mask over a true gaussian: one level of blur rounding becomes `amount` levels, plus one.
    /// With a threshold, that level can also decide whether a sample is sharpened at all (a jump of
    /// `amount * threshold`), so 1 % of the samples may differ more.
    @Test(arguments: [
        ("1:1:0", 1.0, 1.0, 0.0, PixelLayout.rgb8), ("2:1.5:4", 2, 1.5, 4, .rgb8),
        ("0.5:2:0", 0.5, 2, 0, .gray8), ("1:1:0", 1, 1, 0, .rgba8),
    ])
    func sharpenMatchesTheUnsharpMaskFormula(
        name: String, sigma: Double, amount: Double, threshold: Double,
        layout: PixelLayout
    ) throws {
        let transformer = try SharpenTransformer(sigma: sigma, amount: amount, threshold: threshold)
        let d = try compare("sharpen:\(name)", layout, transformer)
        let outside = FilterTestImages.share(of: d.differences, above: Int(amount) + 1)
        #expect(
            outside <= (threshold > 0 ? 0.01 : 0) && d.mean <= 0.2,
            "\(name) \(layout): max \(d.max), mean \(d.mean), \(outside * 100) % above \(amount + 1)")
    }

    /// Pillow's UnsharpMask blurs with its box approximation: within 6 levels, 1 on average, except where
    /// the threshold decides differently (2 % of the samples).
    @Test(arguments: [("1:1:0", 1.0, 1.0, 0.0), ("2:1.5:4", 2, 1.5, 4)])
    func sharpenIsCloseToPillowsUnsharpMask(name: String, sigma: Double, amount: Double, threshold: Double) throws {
        let transformer = try SharpenTransformer(sigma: sigma, amount: amount, threshold: threshold)
        let d = try compare("pillow-sharpen:\(name)", .rgb8, transformer)
        let outside = FilterTestImages.share(of: d.differences, above: 6)
        #expect(outside <= 0.02 && d.mean <= 1, "\(name): max \(d.max), mean \(d.mean), \(outside * 100) % above 6")
    }

    @Test func grayscaleMatchesPillowExactly() throws {
        let reference = try #require(FilterTestImages.reference["grayscale rgb8"])
        let output = try GrayscaleTransformer().transformFrame(FilterTestImages.image(.rgb8))
        #expect(output.layout == .gray8)
        #expect(output.bytes == reference.expected.bytes)
    }

    @Test func grayscaleKeepsAlpha() throws {
        let reference = try #require(FilterTestImages.reference["grayscale rgba8"])
        let output = try GrayscaleTransformer().transformFrame(FilterTestImages.image(.rgba8))
        #expect(output.layout == .rgba8)
        #expect(output.bytes == reference.expected.bytes)
    }

    /// Float32 against float64 may round a value on the other side of .5: one level.
    @Test(arguments: [
        ("40:1.3:0.5", 40.0, 1.3, 0.5, PixelLayout.rgb8), ("-100:1:1", -100, 1, 1, .rgb8),
        ("0:0.6:2.5", 0, 0.6, 2.5, .rgb8), ("25:1.1:0", 25, 1.1, 0, .rgba8),
        ("-30:1.8:1", -30, 1.8, 1, .gray8),
    ])
    func colorAdjustMatchesTheFormula(
        name: String, brightness: Double, contrast: Double, saturation: Double,
        layout: PixelLayout
    ) throws {
        let transformer = try ColorAdjustTransformer(brightness: brightness, contrast: contrast, saturation: saturation)
        let d = try compare("adjust:\(name)", layout, transformer)
        #expect(d.max <= 1, "\(name) \(layout): max \(d.max), mean \(d.mean)")
    }

    /// Every blend mode, over straight-alpha pixels from opaque to transparent: within one level of W3C's formulas.
    @Test(arguments: BlendMode.allCases)
    func tintMatchesTheW3CFormulas(mode: BlendMode) throws {
        let colour = RGBAColor(red: 200, green: 80, blue: 30, alpha: 180)
        let d = try compare("tint:\(mode.rawValue):c8501eb4", .rgba8, TintTransformer(color: colour, mode: mode))
        #expect(d.max <= 1, "\(mode): max \(d.max), mean \(d.mean)")
    }

    @Test func tintOnAnOpaqueImage() throws {
        let colour = RGBAColor(red: 32, green: 64, blue: 255, alpha: 128)
        let d = try compare("tint:overlay:2040ff80", .rgb8, TintTransformer(color: colour, mode: .overlay))
        #expect(d.max <= 1, "max \(d.max), mean \(d.mean)")
    }

    /// A sigma as the script prints it in case names (Python's `str` of an int or a float).
    static func text(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : "\(value)"
    }
}
