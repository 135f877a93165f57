import Foundation
import WebImageCore

/// Converts an image that still carries its ICC profile to sRGB, as a transformer: for images decoded
/// without a colour conversion (`DecodeOptions/colorConversion` `.off`), for example by a server that
/// caches originals as stored and converts when it makes a variant. Images without a profile, or whose
/// profile cannot be used, pass through unchanged (``transform(_:forKey:)`` returns nil).
public struct ColorProfileTransformer: ImageTransformer {
    /// What converts the pixels.
    public let converter: LittleCMSConverter

    /// A transformer converting images with an ICC profile through `converter`.
    public init(converter: LittleCMSConverter = LittleCMSConverter()) {
        self.converter = converter
    }

    /// `"colorProfile(sRGB,lcms2(perceptual))"`: names the target space and every converter setting.
    public var transformerKey: String { "colorProfile(sRGB,\(converter.converterKey))" }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard image.metadata.iccProfile != nil else { return nil }
        return try? converter.convertedToSRGB(image)
    }
}
