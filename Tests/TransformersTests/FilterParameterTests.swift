import Foundation
import Testing
import WebImageCore
import WebImageTransformers

/// Every filter initializer refuses bad values with a typed error, and keys name every parameter.
@Suite struct FilterParameterTests {
    /// True when `body` throws ``ImageError/invalidParameter(name:reason:)`` naming `name`.
    private func rejects(_ name: String, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch ImageError.invalidParameter(let parameter, _) {
            return parameter == name
        } catch {
            return false
        }
    }

    static let notFinite = [Double.nan, .infinity, -.infinity]

    @Test func blurRejectsBadSigmas() {
        for sigma in [0, -1, BlurTransformer.maximumSigma + 1] + Self.notFinite {
            #expect(rejects("sigma") { _ = try BlurTransformer(sigma: sigma) }, "sigma \(sigma)")
        }
        #expect(throws: Never.self) { _ = try BlurTransformer(sigma: BlurTransformer.maximumSigma) }
    }

    @Test func sharpenRejectsBadValues() {
        for sigma in [0, -0.5, SharpenTransformer.maximumSigma + 1] + Self.notFinite {
            #expect(rejects("sigma") { _ = try SharpenTransformer(sigma: sigma) }, "sigma \(sigma)")
        }
        for amount in [-0.1, SharpenTransformer.maximumAmount + 1] + Self.notFinite {
            #expect(rejects("amount") { _ = try SharpenTransformer(sigma: 1, amount: amount) }, "amount \(amount)")
        }
        for threshold in [-1, 256] + Self.notFinite {
            #expect(rejects("threshold") { _ = try SharpenTransformer(sigma: 1, threshold: threshold) })
        }
    }

    @Test func colorAdjustRejectsBadValues() {
        for brightness in [-256, 255.5] + Self.notFinite {
            #expect(rejects("brightness") { _ = try ColorAdjustTransformer(brightness: brightness) })
        }
        for contrast in [-0.01, 101] + Self.notFinite {
            #expect(rejects("contrast") { _ = try ColorAdjustTransformer(contrast: contrast) })
        }
        for saturation in [-1, 1000] + Self.notFinite {
            #expect(rejects("saturation") { _ = try ColorAdjustTransformer(saturation: saturation) })
        }
        #expect(throws: Never.self) { _ = try ColorAdjustTransformer(brightness: -255, contrast: 0, saturation: 100) }
    }

    @Test func keysAreStableAndDistinct() throws {
        let keys =
            [
                try BlurTransformer(sigma: 10).transformerKey,
                try BlurTransformer(sigma: 10.5).transformerKey,
                try BlurTransformer(sigma: 0.1).transformerKey,
                try SharpenTransformer(sigma: 1).transformerKey,
                try SharpenTransformer(sigma: 1, amount: 2).transformerKey,
                try SharpenTransformer(sigma: 1, threshold: 2).transformerKey,
                try SharpenTransformer(sigma: 2).transformerKey,
                try ColorAdjustTransformer().transformerKey,
                try ColorAdjustTransformer(brightness: 1).transformerKey,
                try ColorAdjustTransformer(contrast: 2).transformerKey,
                try ColorAdjustTransformer(saturation: 2).transformerKey,
                GrayscaleTransformer().transformerKey,
            ] + BlendMode.allCases.map { TintTransformer(color: .black, mode: $0).transformerKey } + [
                TintTransformer(color: RGBAColor(red: 1, green: 0, blue: 0)).transformerKey,
                TintTransformer(color: RGBAColor(red: 0, green: 0, blue: 0, alpha: 128)).transformerKey,
            ]
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(try BlurTransformer(sigma: 10).transformerKey == "blur(sigma:10.0)")
        #expect(
            try SharpenTransformer(sigma: 0.5, amount: 1.5, threshold: 3).transformerKey
                == "sharpen(sigma:0.5,amount:1.5,threshold:3.0)")
        #expect(
            try ColorAdjustTransformer(brightness: -0.0).transformerKey
                == ColorAdjustTransformer(brightness: 0).transformerKey)
        #expect(
            TintTransformer(color: RGBAColor(red: 200, green: 80, blue: 5, alpha: 180), mode: .softLight)
                .transformerKey == "tint(color:c85005b4,mode:softLight)")
        #expect(GrayscaleTransformer().transformerKey == "grayscale")
    }
}
