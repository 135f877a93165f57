import Foundation
import WebImageCore

/// Converts images with an embedded ICC profile to sRGB with Little CMS 2: Display P3 from phones,
/// Adobe RGB from cameras, gray with a profile, and (through the JPEG coder) CMYK with a profile.
///
/// Turn it on for a coders manager, or per decode:
///
/// ```swift
/// ImageCodersManager.shared.defaultColorConversion = .sRGB(LittleCMSConverter())  // what `WebImage` does
/// var options = DecodeOptions(); options.colorConversion = .sRGB(LittleCMSConverter())
/// ```
///
/// The converted image has no profile left in its metadata: it is sRGB, which untagged images are taken to
/// be, so an encoder asked to keep the profile (`EncodeOptions/keepsColorProfile`) writes none.
/// Transforms are cached per profile (`ColorTransformCache`, shared by all converters), so a profile seen
/// again costs only the pixel conversion. A profile equivalent to sRGB (no colour moves by more than one
/// level) is dropped without touching the pixels. A malformed, truncated, oversized or mismatched profile
/// (an RGB profile on gray pixels, say) makes ``convertedToSRGB(_:)`` throw `.badImageData`, and decoding
/// keeps the pixels as stored (as browsers ignore a profile they cannot use).
///
/// Gray pixels stay gray: they are converted to a gray profile with sRGB's tone curve and white. Gray
/// decoded as RGB(A) (PNG gray with alpha) with its gray profile gets the same curve on each channel.
public struct LittleCMSConverter: ColorProfileConverter {
    /// How colours outside sRGB are brought in. ``RenderingIntent/perceptual`` by default, as `jpgicc`.
    public let intent: RenderingIntent
    /// Scale the source's black point to sRGB's (lcms2's black point compensation). Off by default, as `jpgicc`.
    public let blackPointCompensation: Bool

    /// A converter with a rendering `intent` (perceptual by default, as `jpgicc`) and optional black point compensation.
    public init(intent: RenderingIntent = .perceptual, blackPointCompensation: Bool = false) {
        self.intent = intent
        self.blackPointCompensation = blackPointCompensation
    }

    public var converterKey: String { "lcms2(\(intent.rawValue)\(blackPointCompensation ? ",bpc" : ""))" }

    public func convertedToSRGB(_ image: Image) throws(ImageError) -> Image {
        guard let profile = image.metadata.iccProfile else { return image }
        var output: Image
        if image.isAnimated {
            // Frames are converted as they are asked for; the poster now, which also checks the profile.
            output = try ProfileFrameConverter(converter: self, profile: profile).transformed(image)
        } else {
            output = image
            output.pixels = try convert(image.pixels, profile: profile)
        }
        output.metadata.iccProfile = nil
        return output
    }

    public func convertCMYKToSRGB(
        invertedSamples samples: [UInt8], width: Int, height: Int,
        profile: Data
    ) throws(ImageError) -> PixelBuffer {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        let (byteCount, overflow2) = count.multipliedReportingOverflow(by: 4)
        // lcms takes row lengths in bytes as 32-bit values.
        guard width >= 0, height >= 0, !overflow, !overflow2, width <= Int(UInt32.max) / 4, samples.count >= byteCount
        else {
            throw .invalidParameter(
                name: "samples", reason: "\(samples.count) bytes for \(width)x\(height) CMYK pixels")
        }
        switch transform(for: profile, format: .invertedCMYK8) {
        case .transform(let transform):
            let bytes = samples.withUnsafeBytes {
                transform.apply($0, width: width, height: height, bytesPerRow: width * 4)
            }
            return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
        case .identity: throw .badImageData(reason: "CMYK profile maps to identity")  // never made for CMYK
        case .unusable(let error): throw error
        }
    }

    /// `pixels`, in the colour space of `profile`, in sRGB; the same pixels for a profile equivalent to sRGB.
    func convert(_ pixels: PixelBuffer, profile: Data) throws(ImageError) -> PixelBuffer {
        if pixels.layout != .gray8, ImageMetadata(iccProfile: profile).iccColorSpace == "GRAY" {
            return try convertExpandedGray(pixels, profile: profile)
        }
        switch transform(for: profile, format: ColorPixelFormat(pixels.layout)) {
        case .transform(let transform): return transform.apply(to: pixels)
        case .identity: return pixels
        case .unusable(let error): throw error
        }
    }

    /// RGB(A) pixels tagged with a gray profile: a gray image the decoder expanded (PNG gray with alpha has
    /// no layout of its own, so it decodes to `.rgba8` with R = G = B). Each colour channel goes through the
    /// gray transform's 256 values; alpha is kept.
    private func convertExpandedGray(_ pixels: PixelBuffer, profile: Data) throws(ImageError) -> PixelBuffer {
        let table: [UInt8]
        switch transform(for: profile, format: .gray8) {
        case .transform(let transform):
            let levels = (0...255).map { UInt8($0) }
            table = levels.withUnsafeBytes { transform.apply($0, width: 256, height: 1, bytesPerRow: 256) }
        case .identity: return pixels
        case .unusable(let error): throw error
        }
        var output = pixels
        let colorChannels = 3, stride = pixels.layout.bytesPerPixel
        output.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in 0..<pixels.height {
                var offset = y * pixels.bytesPerRow
                for _ in 0..<pixels.width {
                    for channel in 0..<colorChannels { bytes[offset + channel] = table[Int(bytes[offset + channel])] }
                    offset += stride
                }
            }
        }
        return output
    }

    private func transform(for profile: Data, format: ColorPixelFormat) -> ColorTransformCache.Entry {
        ColorTransformCache.shared.entry(
            for: .init(
                profile: profile, format: format, intent: intent,
                blackPointCompensation: blackPointCompensation))
    }
}

/// The frames of an animation tagged with `profile`, converted one by one as they are composed.
struct ProfileFrameConverter: FrameTransformer {
    let converter: LittleCMSConverter
    let profile: Data

    var transformerKey: String { "iccToSRGB(\(converter.converterKey))" }

    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        try converter.convert(pixels, profile: profile)
    }
}
