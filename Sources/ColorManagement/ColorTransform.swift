internal import CLCMS2
import Foundation
import WebImageCore

/// One Little CMS transform from an embedded ICC profile to sRGB, for one pixel format.
///
/// Owns an lcms context of its own and the transform made in it; both are created in ``make(profile:format:intent:blackPointCompensation:)``
/// and freed in `deinit`, and neither handle changes in between. The transform is made with
/// `cmsFLAGS_NOCACHE`: without it lcms keeps a one-pixel cache in the transform that every
/// `cmsDoTransform` call writes, and with it a transform may be used from several threads at once (lcms2's
/// documented condition for sharing one). That is what the `@unchecked Sendable` rests on: ``apply(_:)``
/// only reads the transform, and the cache shares it between decodes on any thread.
final class ColorTransform: @unchecked Sendable {
    /// Largest ICC profile accepted: 8 MB. Profiles of cameras and phones are a few hundred bytes to a few
    /// KB, the largest printer CMYK profiles (big CLUTs) one to a few MB; a JPEG can carry about 16 MB. Bigger
    /// claims are refused before lcms parses anything.
    static let maxProfileByteCount = 8 << 20
    /// The ICC header is 128 bytes (ICC.1:2010, 7.2); anything shorter is not a profile.
    static let minProfileByteCount = 128

    let format: ColorPixelFormat
    private let context: OpaquePointer
    private let transform: UnsafeMutableRawPointer

    private init(format: ColorPixelFormat, context: OpaquePointer, transform: UnsafeMutableRawPointer) {
        self.format = format
        self.context = context
        self.transform = transform
    }

    deinit {
        cmsDeleteTransform(transform)
        cmsDeleteContext(context)
    }

    /// A transform from `profile` (the embedded bytes) to sRGB (to a gray profile with sRGB's tone curve for
    /// gray pixels). Throws `.badImageData` when lcms cannot read the profile, when it is not a profile of
    /// `format`'s colour space, or when no transform can be built from it.
    static func make(
        profile: Data, format: ColorPixelFormat, intent: RenderingIntent,
        blackPointCompensation: Bool
    ) throws(ImageError) -> ColorTransform {
        guard profile.count >= minProfileByteCount, profile.count <= maxProfileByteCount else {
            throw .badImageData(
                reason:
                    "ICC profile of \(profile.count) bytes (accepted: \(minProfileByteCount)...\(maxProfileByteCount))")
        }
        guard let context = cmsCreateContext(nil, nil) else { throw .badImageData(reason: "lcms2: out of memory") }
        // lcms copies the bytes it needs while opening: `raw` only has to live through this call.
        let input = profile.withUnsafeBytes { raw in
            cmsOpenProfileFromMemTHR(context, raw.baseAddress, UInt32(raw.count))
        }
        guard let input else {
            cmsDeleteContext(context)
            throw .badImageData(reason: "ICC profile: lcms2 cannot read it")
        }
        defer { cmsCloseProfile(input) }
        guard cmsGetColorSpace(input) == format.profileColorSpace, isUsableClass(cmsGetDeviceClass(input)) else {
            cmsDeleteContext(context)
            throw .badImageData(reason: "ICC profile does not describe \(format) pixels")
        }
        guard let output = format == .gray8 ? grayOutputProfile(context) : cmsCreate_sRGBProfileTHR(context) else {
            cmsDeleteContext(context)
            throw .badImageData(reason: "lcms2: out of memory")
        }
        defer { cmsCloseProfile(output) }
        var flags = UInt32(cmsFLAGS_NOCACHE)
        if blackPointCompensation { flags |= UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION) }
        if format == .rgba8 { flags |= UInt32(cmsFLAGS_COPY_ALPHA) }
        guard
            let transform = cmsCreateTransformTHR(
                context, input, format.inputType, output, format.outputType,
                intent.lcmsValue, flags)
        else {
            cmsDeleteContext(context)
            throw .badImageData(reason: "ICC profile: lcms2 cannot build a transform to sRGB from it")
        }
        return ColorTransform(format: format, context: context, transform: transform)
    }

    /// Profiles that describe a device or colour space; device links, abstract and named-colour profiles
    /// are not what an image is tagged with.
    private static func isUsableClass(_ deviceClass: cmsProfileClassSignature) -> Bool {
        [cmsSigInputClass, cmsSigDisplayClass, cmsSigOutputClass, cmsSigColorSpaceClass].contains(deviceClass)
    }

    /// Gray with D65 white and sRGB's tone curve: where gray pixels go, so they stay one channel.
    private static func grayOutputProfile(_ context: OpaquePointer) -> UnsafeMutableRawPointer? {
        // IEC 61966-2-1's curve as lcms's parametric type 4: Y = (aX + b)^g for X >= d, else cX.
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        guard let curve = cmsBuildParametricToneCurve(context, 4, &parameters) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY()
        /// D65, sRGB's white, as a correlated colour temperature.
        let d65Kelvin = 6504.0
        cmsWhitePointFromTemp(&white, d65Kelvin)
        return cmsCreateGrayProfileTHR(context, &white, curve)
    }

    /// `bytes` (`width` x `height` pixels of ``format``, rows `bytesPerRow` apart) converted, packed.
    func apply(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) -> [UInt8] {
        let outputBytesPerPixel = format.outputLayout.bytesPerPixel
        let outputRow = width * outputBytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: outputRow * height) { out, initialized in
            if width > 0 && height > 0 {
                cmsDoTransformLineStride(
                    transform, bytes.baseAddress, out.baseAddress, UInt32(width), UInt32(height),
                    UInt32(bytesPerRow), UInt32(outputRow), 0, 0)
            }
            initialized = outputRow * height
        }
    }

    /// `pixels` (whose layout must be ``format``'s) in sRGB.
    func apply(to pixels: PixelBuffer) -> PixelBuffer {
        let bytes = pixels.bytes.withUnsafeBytes {
            apply($0, width: pixels.width, height: pixels.height, bytesPerRow: pixels.bytesPerRow)
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, layout: format.outputLayout, bytes: bytes)
    }

    /// Levels per channel of the grid ``isNearIdentity`` samples: 0, 17, ..., 255.
    private static let identityGridLevels = 16

    /// Whether the transform moves no channel of any sampled colour by more than 1 (an sRGB profile, or one
    /// equivalent to it): images with such a profile are left as they are. Not for CMYK.
    func isNearIdentity() -> Bool {
        guard format != .invertedCMYK8 else { return false }
        let step = 255 / (Self.identityGridLevels - 1)
        let levels = (0..<Self.identityGridLevels).map { UInt8($0 * step) }
        var samples: [UInt8] = []
        switch format {
        case .gray8: samples = levels
        case .rgb8, .rgba8:
            for r in levels {
                for g in levels {
                    for b in levels {
                        samples += format == .rgba8 ? [r, g, b, 255] : [r, g, b]
                    }
                }
            }
        case .invertedCMYK8: return false
        }
        let count = samples.count / format.inputBytesPerPixel
        let converted = samples.withUnsafeBytes { apply($0, width: count, height: 1, bytesPerRow: $0.count) }
        return zip(samples, converted).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }
}
