/// How colours outside sRGB's gamut are brought into it (ICC rendering intents).
///
/// For the matrix-shaper profiles of cameras and phones (Display P3, Adobe RGB) perceptual and relative
/// colorimetric give the same result: out-of-gamut colours are clipped. They differ for LUT-based profiles
/// (most CMYK profiles), whose perceptual tables compress the gamut.
public enum RenderingIntent: String, Sendable, Hashable, CaseIterable {
    /// Compress the whole gamut to fit; lcms2's `jpgicc` and most viewers use it. The default.
    case perceptual
    /// Keep in-gamut colours exact (white point adapted), clip the rest.
    case relativeColorimetric
    /// Keep saturation, for charts.
    case saturation
    /// Keep colours exact without adapting the white point.
    case absoluteColorimetric

    /// lcms2's INTENT_* value.
    var lcmsValue: UInt32 {
        switch self {
        case .perceptual: 0
        case .relativeColorimetric: 1
        case .saturation: 2
        case .absoluteColorimetric: 3
        }
    }
}
