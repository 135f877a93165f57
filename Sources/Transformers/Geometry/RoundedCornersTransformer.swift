import WebImageCore

/// Rounds the image's corners with antialiased edges, optionally drawing a border along the rounded
/// outline (SDWebImage's and Nuke's rounded corners). The output is RGBA: the cut corners are transparent.
///
/// ```swift
/// let card = try RoundedCornersTransformer(radius: 16, borderWidth: 2, borderColor: .black)
/// ```
public struct RoundedCornersTransformer: FrameTransformer {
    /// Corner radius in pixels; a radius past half the shorter side is that half (a pill or a circle).
    public let radius: Double
    /// Width of the border drawn inside the outline, in pixels; 0 for none.
    public let borderWidth: Double
    /// Colour of the border.
    public let borderColor: RGBAColor

    /// Rounds corners by `radius` pixels and draws a `borderWidth` border of `borderColor` (white by
    /// default) inside the outline. Both must be finite and not negative, else
    /// `ImageError/invalidParameter(name:reason:)`.
    public init(radius: Double, borderWidth: Double = 0, borderColor: RGBAColor = .white) throws(ImageError) {
        guard radius.isFinite, radius >= 0 else {
            throw .invalidParameter(name: "corner radius", reason: "\(radius) must be finite and not negative")
        }
        guard borderWidth.isFinite, borderWidth >= 0 else {
            throw .invalidParameter(name: "border width", reason: "\(borderWidth) must be finite and not negative")
        }
        (self.radius, self.borderWidth, self.borderColor) = (radius, borderWidth, borderColor)
    }

    /// `roundedCorners(radius,border,color)`.
    public var transformerKey: String { "roundedCorners(\(radius),\(borderWidth),\(borderColor))" }

    /// The rounded pixels (RGBA); unchanged when there is neither radius nor border.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        if radius == 0 && borderWidth == 0 { return pixels }
        return pixels.roundedCorners(radius: radius, borderWidth: borderWidth, borderColor: borderColor)
    }
}

/// Cuts the largest centred circle out of the image, with antialiased edges and an optional border (Nuke's
/// and Kingfisher's circle). The output is a square of the shorter side, RGBA, transparent outside the circle.
public struct CircleTransformer: FrameTransformer {
    /// Width of the border drawn inside the circle, in pixels; 0 for none.
    public let borderWidth: Double
    /// Colour of the border.
    public let borderColor: RGBAColor

    /// A circle with a `borderWidth` border of `borderColor` (white by default) inside it. The width must be
    /// finite and not negative, else `ImageError/invalidParameter(name:reason:)`.
    public init(borderWidth: Double = 0, borderColor: RGBAColor = .white) throws(ImageError) {
        guard borderWidth.isFinite, borderWidth >= 0 else {
            throw .invalidParameter(name: "border width", reason: "\(borderWidth) must be finite and not negative")
        }
        (self.borderWidth, self.borderColor) = (borderWidth, borderColor)
    }

    /// `circle(border,color)`.
    public var transformerKey: String { "circle(\(borderWidth),\(borderColor))" }

    /// The circle (RGBA), a square of the shorter side cut from the centre.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let side = min(pixels.width, pixels.height)
        guard side > 0 else { return pixels }
        let origin = Gravity.center.regionOrigin(regionWidth: side, regionHeight: side, in: pixels)
        let square = pixels.cropped(x: origin.x, y: origin.y, width: side, height: side)
        return square.roundedCorners(radius: Double(side) / 2, borderWidth: borderWidth, borderColor: borderColor)
    }
}
