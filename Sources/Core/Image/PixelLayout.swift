/// How the bytes of one pixel are laid out in a ``PixelBuffer``.
///
/// Coders pick the cheapest layout that keeps the image's information: an opaque photo is
/// `.rgb8`, a grayscale scan is `.gray8`, anything with transparency is `.rgba8`.
public enum PixelLayout: String, Sendable, Hashable, CaseIterable {
    /// Red, green, blue and straight (not premultiplied) alpha, one byte each.
    case rgba8
    /// Red, green and blue, one byte each; always opaque.
    case rgb8
    /// One luminance byte; always opaque.
    case gray8

    /// Bytes one pixel occupies.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: 4
        case .rgb8: 3
        case .gray8: 1
        }
    }

    /// Whether the layout carries an alpha channel.
    public var hasAlpha: Bool { self == .rgba8 }
}
