import Foundation

/// Converts pixels tagged with an embedded ICC profile to sRGB, the colour space the web assumes for
/// untagged images. Core ships none; `WebImageColorManagement` has one on Little CMS
/// (`LittleCMSConverter`), which the `WebImage` module turns on by default.
///
/// Set through ``DecodeOptions/colorConversion`` (or ``ImageCodersManager/defaultColorConversion``): coders
/// apply it as they finish a decode (``DecodeOptions/image(from:format:metadata:isIncomplete:storedSize:)``,
/// ``Image/decodedAnimation(source:format:options:metadata:)``), ``ImageCodersManager`` to whatever a
/// custom coder returns with a profile, and the JPEG coder hands it CMYK samples with their profile
/// instead of converting them naively.
public protocol ColorProfileConverter: Sendable {
    /// Identifies the converter and its settings (`"lcms2(perceptual)"`); two converters with the same key
    /// must give the same pixels, since ``DecodeOptions`` compare by it.
    var converterKey: String { get }

    /// `image`, whose pixels are in the colour space of `image.metadata.iccProfile`, converted to sRGB, with
    /// that profile removed from its metadata (the pixels are no longer in it). An animation's frames are
    /// converted as they are asked for. Throws when the profile is malformed or does not fit the pixels;
    /// ``ColorConversion/apply(to:)`` then keeps the image as it was.
    func convertedToSRGB(_ image: Image) throws(ImageError) -> Image

    /// CMYK samples (4 bytes per pixel, C, M, Y, K, packed rows, stored inverted as Adobe's tools write
    /// them: 255 is no ink) in the colour space of the CMYK `profile`, as sRGB `.rgb8` pixels.
    func convertCMYKToSRGB(
        invertedSamples samples: [UInt8], width: Int, height: Int,
        profile: Data
    ) throws(ImageError) -> PixelBuffer

    /// An ICC profile describing `space` (a tone curve and chromaticities, as PNG's `gAMA` and `cHRM`
    /// give them), which ``convertedToSRGB(_:)`` then converts from as it does an embedded one; nil when
    /// the converter cannot build one (the default) or the numbers describe no usable space. Coders use it
    /// for ``DecodeOptions/appliesPNGGamma``.
    func iccProfile(for space: GammaColorSpace) -> Data?
}

/// What a decode does with an embedded ICC profile.
public enum ColorConversion: Sendable, Hashable {
    /// Pixels stay as stored, the profile stays in ``ImageMetadata/iccProfile``. (Not named `none`, which
    /// would read as `Optional.none`, nil, in ``DecodeOptions/colorConversion``.)
    case off
    /// Images with a profile are converted to sRGB by this converter, and lose the profile.
    case sRGB(any ColorProfileConverter)

    public static func == (lhs: ColorConversion, rhs: ColorConversion) -> Bool {
        switch (lhs, rhs) {
        case (.off, .off): true
        case (.sRGB(let a), .sRGB(let b)): a.converterKey == b.converterKey
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .off: hasher.combine(0)
        case .sRGB(let converter): hasher.combine(1); hasher.combine(converter.converterKey)
        }
    }

    /// The converter, for ``sRGB(_:)``.
    public var converter: (any ColorProfileConverter)? {
        if case .sRGB(let converter) = self { return converter }
        return nil
    }

    /// `image` converted to sRGB when this asks for it and the image carries a profile; otherwise, or when
    /// the converter cannot use the profile (malformed, or not for these pixels), `image` unchanged. An
    /// image without a profile is returned as is, at no cost.
    public func apply(to image: Image) -> Image {
        guard let converter, image.metadata.iccProfile != nil else { return image }
        return (try? converter.convertedToSRGB(image)) ?? image
    }
}

extension ImageMetadata {
    /// The colour space signature of ``iccProfile`` (header bytes 16...19: `"RGB "`, `"GRAY"`, `"CMYK"`),
    /// nil without a profile or with one shorter than the 128-byte ICC header.
    public var iccColorSpace: String? {
        /// Where the ICC header keeps the data colour space, and the header's size (ICC.1:2010, 7.2).
        let signatureOffset = 16, headerSize = 128
        guard let profile = iccProfile, profile.count >= headerSize else { return nil }
        let start = profile.startIndex + signatureOffset
        return String(decoding: profile[start..<start + 4], as: UTF8.self)
    }
}

extension EncodeOptions {
    /// The ICC profile to embed for `image`: ``iccProfile`` when set; else, with ``keepsColorProfile``, the
    /// image's own profile when it describes pixels like the image's (an RGB profile for RGB pixels, a gray
    /// one for gray), so a CMYK profile is never written over RGB pixels; else nil. Images converted to sRGB
    /// on decode carry no profile, so they are written untagged (sRGB by convention).
    public func colorProfile(for image: Image) -> Data? {
        if let iccProfile { return iccProfile }
        guard keepsColorProfile, let profile = image.metadata.iccProfile else { return nil }
        switch image.metadata.iccColorSpace {
        case "RGB ": return image.pixels.layout == .gray8 ? nil : profile
        case "GRAY": return image.pixels.layout == .gray8 ? profile : nil
        default: return nil
        }
    }
}
