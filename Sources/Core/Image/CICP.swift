/// Colour information as code points of ITU-T H.273 (CICP), which AVIF and HEIF carry in an `nclx`
/// colour box instead of (or beside) an ICC profile: colour primaries, transfer characteristics, matrix
/// coefficients and range. Decoders convert YUV to RGB with the matrix and range; the primaries and
/// transfer say which RGB the pixels are in (1/13/1 is sRGB, 12/13/x Display P3), so a colour-management
/// step can convert them when ``ImageMetadata/iccProfile`` is nil.
public struct CICP: Sendable, Hashable, CustomStringConvertible {
    /// H.273 ColourPrimaries (1: BT.709/sRGB, 9: BT.2020, 12: P3 D65; 2: unspecified).
    public var colorPrimaries: Int
    /// H.273 TransferCharacteristics (13: sRGB, 16: PQ, 18: HLG; 2: unspecified).
    public var transferCharacteristics: Int
    /// H.273 MatrixCoefficients (0: identity/RGB, 1: BT.709, 6: BT.601; 2: unspecified).
    public var matrixCoefficients: Int
    /// Whether the stored YUV samples use the full range (true) or the limited "video" range.
    public var fullRange: Bool

    /// Code points as ITU-T H.273 numbers them.
    public init(colorPrimaries: Int, transferCharacteristics: Int, matrixCoefficients: Int, fullRange: Bool) {
        self.colorPrimaries = colorPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// "1/13/6 full": primaries/transfer/matrix and range, as avifenc's `--cicp` writes them.
    public var description: String {
        "\(colorPrimaries)/\(transferCharacteristics)/\(matrixCoefficients) \(fullRange ? "full" : "limited")"
    }
}
