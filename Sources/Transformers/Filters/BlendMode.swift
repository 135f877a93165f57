import Foundation

/// How a colour mixes with the pixels under it: the separable blend modes of W3C Compositing and Blending
/// Level 1 (the `mix-blend-mode` values of CSS), on straight colour values in 0...1.
public enum BlendMode: String, Sendable, Hashable, CaseIterable {
    /// The colour replaces the pixel's colour.
    case normal
    /// Backdrop times colour: always darker, white keeps the pixel.
    case multiply
    /// The inverse of multiplying the inverses: always lighter, black keeps the pixel.
    case screen
    /// Multiply or screen depending on the backdrop: keeps highlights and shadows, tints the mid-tones.
    case overlay
    /// The darker of the two, per channel.
    case darken
    /// The lighter of the two, per channel.
    case lighten
    /// A gentler hard light: darkens or lightens as if a diffused spotlight shone the colour.
    case softLight
    /// Multiply or screen depending on the colour, as a harsh spotlight.
    case hardLight
    /// The absolute difference.
    case difference
    /// Like difference, with lower contrast.
    case exclusion

    /// B(backdrop, source): the blended value of one channel, both inputs and the result in 0...1.
    func blend(backdrop b: Float, source s: Float) -> Float {
        switch self {
        case .normal: s
        case .multiply: b * s
        case .screen: b + s - b * s
        case .overlay: BlendMode.hardLight.blend(backdrop: s, source: b)
        case .darken: min(b, s)
        case .lighten: max(b, s)
        case .hardLight:
            s <= 0.5 ? b * (2 * s) : BlendMode.screen.blend(backdrop: b, source: 2 * s - 1)
        case .softLight:
            s <= 0.5 ? b - (1 - 2 * s) * b * (1 - b) : b + (2 * s - 1) * (Self.softLightCurve(b) - b)
        case .difference: abs(b - s)
        case .exclusion: b + s - 2 * b * s
        }
    }

    /// The W3C soft-light curve D(b): a polynomial in the shadows (up to a quarter), the square root above.
    private static func softLightCurve(_ b: Float) -> Float {
        b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
    }
}
