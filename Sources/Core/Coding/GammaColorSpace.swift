import Foundation

/// A colour space given by numbers rather than by an ICC profile: a pure power tone curve and, for colour
/// images, the chromaticities of the primaries and the white point. PNG's `gAMA` and `cHRM` chunks
/// describe an image this way; a ``ColorProfileConverter`` turns it into a profile
/// (``ColorProfileConverter/iccProfile(for:)``) so the image converts to sRGB like any tagged image.
public struct GammaColorSpace: Sendable, Hashable {
    /// The exponent from stored values to linear light: linear = stored ^ `decodingExponent` (values
    /// 0...1). PNG's `gAMA` holds its inverse (0.45455 for a 2.2 power curve).
    public var decodingExponent: Double
    /// The chromaticities of white and the primaries; nil for sRGB's (BT.709 primaries, D65 white).
    public var chromaticities: Chromaticities?
    /// Whether the pixels are gray: the space is then a gray one with that tone curve and white point,
    /// and the primaries are not used.
    public var isGray: Bool

    /// CIE 1931 xy chromaticities of the white point and of the red, green and blue primaries.
    public struct Chromaticities: Sendable, Hashable {
        /// The white point's x.
        public var whiteX: Double
        /// The white point's y.
        public var whiteY: Double
        /// The red primary's x.
        public var redX: Double
        /// The red primary's y.
        public var redY: Double
        /// The green primary's x.
        public var greenX: Double
        /// The green primary's y.
        public var greenY: Double
        /// The blue primary's x.
        public var blueX: Double
        /// The blue primary's y.
        public var blueY: Double

        /// The chromaticities, as PNG's `cHRM` chunk orders them.
        public init(
            whiteX: Double, whiteY: Double, redX: Double, redY: Double,
            greenX: Double, greenY: Double, blueX: Double, blueY: Double
        ) {
            self.whiteX = whiteX; self.whiteY = whiteY
            self.redX = redX; self.redY = redY
            self.greenX = greenX; self.greenY = greenY
            self.blueX = blueX; self.blueY = blueY
        }

        /// sRGB's: BT.709 primaries and D65 white.
        public static let sRGB = Chromaticities(
            whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
            greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)
    }

    /// A space with this tone curve exponent, chromaticities (sRGB's when nil) and kind of pixels.
    public init(decodingExponent: Double, chromaticities: Chromaticities? = nil, isGray: Bool = false) {
        self.decodingExponent = decodingExponent
        self.chromaticities = chromaticities
        self.isGray = isGray
    }
}

extension ColorProfileConverter {
    /// No profile: converters that cannot build one leave images described by numbers as stored.
    public func iccProfile(for space: GammaColorSpace) -> Data? { nil }
}
