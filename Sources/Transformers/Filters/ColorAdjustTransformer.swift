import WebImageCore

/// Brightness, contrast and saturation, as imgproxy's `br:`, `co:` and `sa:` (and `a:%b:%c:%s`).
///
/// Applied to each pixel's straight colour in this order, then rounded and clamped to 0...255:
/// - brightness (imgproxy's -255...255, default 0) is added to every colour channel;
/// - contrast (a multiplier, 1 keeps it) scales the distance from mid-gray: `(v - 127.5) * contrast + 127.5`;
/// - saturation (a multiplier, 1 keeps it, 0 gives gray) scales each channel's distance from the pixel's
///   BT.601 luma: `luma + saturation * (v - luma)`.
/// Alpha is kept; gray images ignore saturation.
public struct ColorAdjustTransformer: FrameTransformer {
    /// imgproxy's brightness range: adding 255 makes any pixel white, -255 black.
    public static let brightnessRange = -255.0...255.0
    /// Contrast and saturation multipliers accepted: 0 flattens, and beyond 100 every value is already
    /// pushed to 0 or 255.
    public static let multiplierRange = 0.0...100.0
    /// The value contrast pivots around: the middle of 0...255.
    static let midGray: Float = 127.5

    /// Added to every colour channel, -255...255.
    public let brightness: Double
    /// Multiplies the distance from mid-gray; 1 keeps the contrast.
    public let contrast: Double
    /// Multiplies the distance from the pixel's luma; 1 keeps the saturation.
    public let saturation: Double

    /// An adjustment; the defaults change nothing. Values outside ``brightnessRange`` or
    /// ``multiplierRange``, and non-finite ones, throw `ImageError/invalidParameter(name:reason:)`.
    public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1) throws(ImageError) {
        self.brightness = try FilterParameter.checked(brightness, name: "brightness", in: Self.brightnessRange)
        self.contrast = try FilterParameter.checked(contrast, name: "contrast", in: Self.multiplierRange)
        self.saturation = try FilterParameter.checked(saturation, name: "saturation", in: Self.multiplierRange)
    }

    /// `adjust(brightness:B,contrast:C,saturation:S)`.
    public var transformerKey: String {
        "adjust(brightness:\(FilterParameter.keyText(brightness)),contrast:\(FilterParameter.keyText(contrast))"
            + ",saturation:\(FilterParameter.keyText(saturation)))"
    }

    /// The adjusted frame, same size and layout.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        var source = pixels.packed()
        // Brightness then contrast, for each of the 256 input values.
        let levels: [Float] = (0..<256).map { value in
            (Float(value) + Float(brightness) - Self.midGray) * Float(contrast) + Self.midGray
        }
        let channels = source.layout.bytesPerPixel
        let saturation = Float(self.saturation)
        let mixesChannels = saturation != 1 && source.layout != .gray8
        levels.withUnsafeBufferPointer { levels in
            source.bytes.withUnsafeMutableBufferPointer { bytes in
                let colourChannels = source.layout.hasAlpha ? 3 : channels
                for pixel in stride(from: 0, to: bytes.count, by: channels) {
                    if mixesChannels {
                        let red = levels[Int(bytes[pixel])], green = levels[Int(bytes[pixel + 1])]
                        let blue = levels[Int(bytes[pixel + 2])]
                        let luma = Luma.of(red, green, blue)
                        bytes[pixel] = FloatRow.byte(luma + saturation * (red - luma))
                        bytes[pixel + 1] = FloatRow.byte(luma + saturation * (green - luma))
                        bytes[pixel + 2] = FloatRow.byte(luma + saturation * (blue - luma))
                    } else {
                        for c in 0..<colourChannels { bytes[pixel + c] = FloatRow.byte(levels[Int(bytes[pixel + c])]) }
                    }
                }
            }
        }
        return source
    }
}
