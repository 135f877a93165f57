import WebImageCore

/// Maps each pixel's brightness (BT.601 luma) onto a palette of colours running from black to white:
/// ``dark`` for black, ``light`` for white, in between a straight line. ``intensity`` mixes the mapped colour
/// with the original (1: only the palette). imgproxy Pro's `duotone`, whose exact palette is not published;
/// this is the usual meaning of a duotone (the colours of two inks over the tones of a gray image).
///
/// ```swift
/// let print = try DuotoneTransformer(intensity: 1, dark: RGBAColor(hex: "1d1f4e"), light: RGBAColor(hex: "ffe9a8"))
/// ```
///
/// Alpha is kept; a gray frame becomes RGB (its colours are no longer gray).
public struct DuotoneTransformer: FrameTransformer {
    /// The intensities of duotone and monochrome: 0 (the original) to 1 (only the palette).
    public static let intensityRange: ClosedRange<Double> = 0...1

    /// 0...1: how much of the palette replaces the original colour. 0 changes nothing.
    public let intensity: Double
    /// The colour of the darkest tones (its alpha is ignored). Black by default, as imgproxy.
    public let dark: RGBAColor
    /// The colour of the lightest tones (its alpha is ignored). White by default, as imgproxy.
    public let light: RGBAColor

    /// A duotone; throws `ImageError/invalidParameter(name:reason:)` for an intensity outside 0...1.
    public init(intensity: Double, dark: RGBAColor = .black, light: RGBAColor = .white) throws(ImageError) {
        self.intensity = try FilterParameter.checked(
            intensity, name: "intensity", in: DuotoneTransformer.intensityRange)
        self.dark = dark
        self.light = light
    }

    /// `duotone(1,000000,ffffff)`.
    public var transformerKey: String {
        "duotone(\(ProcessingNumber.text(intensity)),\(dark.hexString),\(light.hexString))"
    }

    /// The frame with its tones mapped, same size; alpha kept.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard intensity > 0 else { return pixels }
        let stops = [(0.0, dark), (1.0, light)]
        return ToneMap(stops: stops, intensity: intensity).apply(to: pixels)
    }
}

/// Maps each pixel's brightness onto a palette built on one colour: black for black, white for white, and
/// ``color`` for the tones as bright as it, straight lines in between, so the image looks printed in
/// that colour. ``intensity`` mixes the result with the original. imgproxy Pro's `monochrome` (default
/// colour `b3b3b3`, whose palette is plain gray); its exact palette is not published.
///
/// ```swift
/// let sepia = try MonochromeTransformer(intensity: 1, color: RGBAColor(hex: "704214"))
/// ```
public struct MonochromeTransformer: FrameTransformer {
    /// 0...1: how much of the palette replaces the original colour. 0 changes nothing.
    public let intensity: Double
    /// The palette's colour (its alpha is ignored). `b3b3b3` by default, as imgproxy.
    public let color: RGBAColor

    /// imgproxy's default colour: a light gray, whose palette is plain grayscale.
    public static let defaultColor = RGBAColor(red: 0xb3, green: 0xb3, blue: 0xb3)

    /// A monochrome palette; throws `ImageError/invalidParameter(name:reason:)` for an intensity outside
    /// 0...1.
    public init(intensity: Double, color: RGBAColor = MonochromeTransformer.defaultColor) throws(ImageError) {
        self.intensity = try FilterParameter.checked(
            intensity, name: "intensity", in: DuotoneTransformer.intensityRange)
        self.color = color
    }

    /// `monochrome(1,b3b3b3)`.
    public var transformerKey: String { "monochrome(\(ProcessingNumber.text(intensity)),\(color.hexString))" }

    /// The frame in the palette's colours, same size; alpha kept.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard intensity > 0 else { return pixels }
        let position = Double(Luma.of(color.red, color.green, color.blue)) / 255
        let stops = [(0.0, RGBAColor.black), (position, color), (1.0, RGBAColor.white)]
        return ToneMap(stops: stops, intensity: intensity).apply(to: pixels)
    }
}

/// A palette from luma (0...1) to colours, straight lines between its stops, mixed with the original by
/// `intensity`; one lookup table of 256 entries per frame.
struct ToneMap {
    /// (luma, colour) in increasing luma; equal positions make a jump.
    let stops: [(Double, RGBAColor)]
    let intensity: Double

    /// The palette's colour at each luma level, as (red, green, blue) in 0...255.
    func table() -> [(Double, Double, Double)] {
        (0..<256).map { level in
            let t = Double(level) / 255
            // The first segment of non-zero length that reaches t.
            let index =
                (0..<(stops.count - 1)).first { stops[$0].0 < stops[$0 + 1].0 && t <= stops[$0 + 1].0 }
                ?? stops.count - 2
            let lower = stops[index], upper = stops[index + 1]
            let span = upper.0 - lower.0
            let f = span > 0 ? (t - lower.0) / span : 1
            func mix(_ a: UInt8, _ b: UInt8) -> Double { Double(a) + (Double(b) - Double(a)) * f }
            return (mix(lower.1.red, upper.1.red), mix(lower.1.green, upper.1.green), mix(lower.1.blue, upper.1.blue))
        }
    }

    func apply(to pixels: PixelBuffer) -> PixelBuffer {
        let palette = table()
        let source = pixels.layout == .gray8 ? pixels.converted(to: .rgb8) : pixels.packed()
        let channels = source.layout.bytesPerPixel
        var bytes = source.bytes
        func blend(_ original: UInt8, _ toned: Double) -> UInt8 {
            UInt8(min(255, max(0, (Double(original) + (toned - Double(original)) * intensity).rounded())))
        }
        bytes.withUnsafeMutableBufferPointer { out in
            for base in stride(from: 0, to: out.count, by: channels) {
                let tone = palette[Int(Luma.of(out[base], out[base + 1], out[base + 2]))]
                out[base] = blend(out[base], tone.0)
                out[base + 1] = blend(out[base + 1], tone.1)
                out[base + 2] = blend(out[base + 2], tone.2)
            }
        }
        return PixelBuffer(width: source.width, height: source.height, layout: source.layout, bytes: bytes)
    }
}
