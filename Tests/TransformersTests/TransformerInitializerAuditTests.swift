import Testing
import WebImageCore
import WebImageTransformers

/// The audit of every public initializer in the module: extreme and nonsensical values either build a
/// transformer that works on a small image or throw `ImageError`; none stops the process.
@Suite struct TransformerInitializerAuditTests {
    static let doubles: [Double] = [
        0, -1, 0.5, 1, 255, 1e6, -1e300, 1e300, .nan, .infinity, -.infinity,
        .greatestFiniteMagnitude, .leastNonzeroMagnitude,
    ]
    static let ints: [Int] = [0, -1, 1, 3, 70_000, Int(Int32.max), Int.max, Int.min]
    static let gravities: [Gravity] = [
        .center, .smart, .southEast, .focalPoint(x: .nan, y: 0.5),
        .focalPoint(x: -1, y: 2), .focalPoint(x: .infinity, y: 0),
    ]

    /// A 5x4 RGBA image with some transparency.
    static let pixels: PixelBuffer = {
        var bytes: [UInt8] = []
        for i in 0..<20 { bytes += [UInt8(i * 12), UInt8(255 - i * 12), 7, i % 3 == 0 ? 0 : 255] }
        return PixelBuffer(width: 5, height: 4, layout: .rgba8, bytes: bytes)
    }()

    /// Builds with `make`; a transformer that was built must also run (or throw) on the test image.
    static func check(_ make: () throws(ImageError) -> any FrameTransformer) {
        do {
            let transformer = try make()
            _ = transformer.transformerKey
            _ = try? transformer.transformFrame(pixels)
            _ = try? transformer.transformFrame(pixels.converted(to: .gray8))
        } catch {
            // Refused with a typed error: what the audit asks for.
        }
    }

    @Test func sizesAndOffsets() {
        for a in Self.ints {
            for b in Self.ints {
                Self.check { () throws(ImageError) in try CropTransformer(x: a, y: b, width: a, height: b) }
                Self.check { () throws(ImageError) in try PixelateTransformer(blockSize: a) }
                Self.check { () throws(ImageError) in try CropTransformer(width: a, height: b, gravity: .smart) }
                Self.check { () throws(ImageError) in try PaddingTransformer(top: a, right: b, bottom: a, left: b) }
                Self.check { () throws(ImageError) in try ExtendTransformer(width: a, height: b) }
                Self.check { () throws(ImageError) in try ResizeTransformer(width: a, height: b, mode: .fill) }
            }
        }
        for gravity in Self.gravities {
            Self.check { () throws(ImageError) in try CropTransformer(width: 2, height: 2, gravity: gravity) }
            Self.check { () throws(ImageError) in try ExtendTransformer(width: 9, height: 9, gravity: gravity) }
            Self.check { () throws(ImageError) in
                try ResizeTransformer(width: 3, height: 3, mode: .fill, gravity: gravity)
            }
        }
    }

    @Test func numbers() {
        let logo = Image(pixels: Self.pixels)
        for value in Self.doubles {
            Self.check { () throws(ImageError) in try RotateTransformer(degrees: value) }
            Self.check { () throws(ImageError) in try RoundedCornersTransformer(radius: value, borderWidth: value) }
            Self.check { () throws(ImageError) in try CircleTransformer(borderWidth: value) }
            Self.check { () throws(ImageError) in try TrimTransformer(threshold: value) }
            Self.check { () throws(ImageError) in try BlurTransformer(sigma: value) }
            Self.check { () throws(ImageError) in try MonochromeTransformer(intensity: value) }
            Self.check { () throws(ImageError) in try DuotoneTransformer(intensity: value, dark: .white, light: .black)
            }
            Self.check { () throws(ImageError) in try SharpenTransformer(sigma: value, amount: value, threshold: value)
            }
            Self.check { () throws(ImageError) in try SharpenTransformer(sigma: 1, amount: value) }
            Self.check { () throws(ImageError) in
                try ColorAdjustTransformer(brightness: value, contrast: value, saturation: value)
            }
            Self.check { () throws(ImageError) in try ColorAdjustTransformer(contrast: value) }
            Self.check { () throws(ImageError) in
                try WatermarkTransformer(watermark: logo, opacity: value, scale: value)
            }
            Self.check { () throws(ImageError) in try WatermarkTransformer(watermark: logo, scale: value) }
        }
        for offset in Self.ints {
            Self.check { () throws(ImageError) in
                try WatermarkTransformer(watermark: logo, offsetX: offset, offsetY: offset)
            }
            Self.check { () throws(ImageError) in
                try WatermarkTransformer(watermark: logo, offsetX: offset, offsetY: offset, replicates: true)
            }
        }
        Self.check { () throws(ImageError) in try WatermarkTransformer(watermark: Image(frames: [])) }
    }

    @Test func valuesWithoutChecks() {
        for mode in BlendMode.allCases {
            Self.check { TintTransformer(color: RGBAColor(red: 1, green: 2, blue: 3, alpha: 0), mode: mode) }
            Self.check { TintTransformer(color: .white, mode: mode) }
        }
        Self.check { FlattenTransformer(background: .transparent) }
        Self.check { FlipTransformer(horizontal: true, vertical: true) }
        Self.check { GrayscaleTransformer() }
        Self.check { ProcessingTransformer(steps: []) }
        for text in ["", "#", "ggg", "fffffffff", "#ffff", "12345"] { _ = try? RGBAColor(hex: text) }
    }

    @Test func processingTextNeverTraps() {
        // Seeded random texts from the option grammar's pieces: each parses or throws ImageError.
        let pieces = [
            "rs", "fill", "fit", "c", "g", "fp", "sm", "wm", "pd", "bg", "rot", "dpr", "t", "0", "1", "-1",
            "0.5", "1e308", "-1e309", "nan", "inf", "99999999999999999999", "ffffff", "", ":", "/", "ex", "col",
            "mw", "mh", "z", "exar", "pix", "mc", "dt", "mrd", "el", "fill-down", "force", "16384", "0.001",
            "3", "no", "soea", "fq", "skp", "jpg",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<next(12) { text += pieces[next(pieces.count)] + (next(3) == 0 ? "/" : ":") }
            if let options = try? ProcessingOptions(parsing: text) {
                #expect((try? ProcessingOptions(parsing: options.description)) == options, "\(text)")
                // Built transformers also run: the geometry's arithmetic must not trap either.
                if let built = try? options.transformer(watermarkImage: Image(pixels: Self.pixels))
                    as? ProcessingTransformer
                {
                    _ = try? built.transformFrame(Self.pixels)
                }
            }
        }
    }
}
