import Foundation
import WebImageCore

/// CMYK files that carry an ICC profile, decoded for colour management: with a converter in
/// `DecodeOptions/colorConversion` the C decoder hands over the 4 stored samples per pixel
/// (`CJPEG_KEEP_CMYK_WITH_PROFILE`), carried in an `.rgba8`-sized buffer until ``toRGB(_:metadata:options:)``
/// turns them into sRGB through the profile.
enum JPEGCMYK {
    /// `samples` (CMYK as stored, Adobe-inverted, 4 bytes per pixel in a packed `.rgba8`-sized buffer) as
    /// RGB: through the converter and the file's profile, which the image then loses (its pixels are sRGB
    /// now); or, when there is no converter or it cannot use the profile (malformed, not CMYK), with the
    /// naive formula the C decoder uses otherwise, keeping a CMYK profile as a file without conversion would
    /// (and dropping one of another colour space).
    static func toRGB(_ samples: PixelBuffer, metadata: inout ImageMetadata, options: DecodeOptions) -> PixelBuffer {
        if let converter = options.colorConversion?.converter, let profile = metadata.iccProfile,
            let rgb = try? converter.convertCMYKToSRGB(
                invertedSamples: samples.bytes, width: samples.width,
                height: samples.height, profile: profile)
        {
            metadata.iccProfile = nil
            return rgb
        }
        // A profile that is not a CMYK one describes nothing in this file; kept, a later conversion would
        // apply it to the naive RGB.
        if metadata.iccColorSpace != "CMYK" { metadata.iccProfile = nil }
        return naiveRGB(samples)
    }

    /// Each channel is the stored C, M or Y value times the stored K, scaled to 255: the same as the C
    /// decoder's `cmyk_to_rgb`.
    static func naiveRGB(_ samples: PixelBuffer) -> PixelBuffer {
        let count = samples.width * samples.height
        let rgb = [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            samples.bytes.withUnsafeBufferPointer { cmyk in
                for i in 0..<count {
                    let k = Int(cmyk[i * 4 + 3])
                    out[i * 3] = UInt8(Int(cmyk[i * 4]) * k / 255)
                    out[i * 3 + 1] = UInt8(Int(cmyk[i * 4 + 1]) * k / 255)
                    out[i * 3 + 2] = UInt8(Int(cmyk[i * 4 + 2]) * k / 255)
                }
            }
            initialized = count * 3
        }
        return PixelBuffer(width: samples.width, height: samples.height, layout: .rgb8, bytes: rgb)
    }
}
