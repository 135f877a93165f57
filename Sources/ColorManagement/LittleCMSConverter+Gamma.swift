internal import CLCMS2
import Foundation
import WebImageCore

extension LittleCMSConverter {
    /// A matrix/TRC profile (a gray one for gray pixels) with `space`'s power curve, white point and
    /// primaries, built by Little CMS; the conversion to sRGB then goes through the same transforms (and
    /// cache) as embedded profiles. The profile's creation date is zeroed so the same numbers always give
    /// the same bytes, and so the same cached transform. Nil for an exponent outside 0.01...100 or
    /// chromaticities Little CMS cannot build a profile from (a zero y, primaries on a line).
    public func iccProfile(for space: GammaColorSpace) -> Data? {
        /// Tone curve exponents accepted: a 100x curve either way is already far past any real file.
        let exponents = 0.01...100.0
        guard space.decodingExponent.isFinite, exponents.contains(space.decodingExponent) else { return nil }
        let chromaticities = space.chromaticities ?? .sRGB
        let values = [
            chromaticities.whiteX, chromaticities.whiteY, chromaticities.redX, chromaticities.redY,
            chromaticities.greenX, chromaticities.greenY, chromaticities.blueX, chromaticities.blueY,
        ]
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }),
            chromaticities.whiteY > 0, chromaticities.redY > 0, chromaticities.greenY > 0, chromaticities.blueY > 0
        else {
            return nil
        }
        guard let context = cmsCreateContext(nil, nil) else { return nil }
        defer { cmsDeleteContext(context) }
        guard let curve = cmsBuildGamma(context, space.decodingExponent) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: chromaticities.whiteX, y: chromaticities.whiteY, Y: 1)
        let profile: cmsHPROFILE?
        if space.isGray {
            profile = cmsCreateGrayProfileTHR(context, &white, curve)
        } else {
            var primaries = cmsCIExyYTRIPLE(
                Red: cmsCIExyY(x: chromaticities.redX, y: chromaticities.redY, Y: 1),
                Green: cmsCIExyY(x: chromaticities.greenX, y: chromaticities.greenY, Y: 1),
                Blue: cmsCIExyY(x: chromaticities.blueX, y: chromaticities.blueY, Y: 1))
            var curves: [OpaquePointer?] = [curve, curve, curve]
            profile = curves.withUnsafeMutableBufferPointer { curves in
                cmsCreateRGBProfileTHR(context, &white, &primaries, curves.baseAddress)
            }
        }
        guard let profile else { return nil }
        defer { cmsCloseProfile(profile) }
        var size: UInt32 = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size >= 128 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(profile, &bytes, &size) != 0 else { return nil }
        /// The ICC header's creation date and time (ICC.1:2010, 7.2.1: bytes 24...35).
        let dateRange = 24..<36
        bytes.replaceSubrange(dateRange, with: repeatElement(0, count: dateRange.count))
        return Data(bytes[..<Int(size)])
    }
}
