import WebImageCore

/// Cuts away uniform borders (imgproxy's `trim`): rows and columns at the edges whose every pixel is
/// within `threshold` of the border colour.
///
/// The border colour is `color`, or the top-left pixel's when nil. A pixel matches when no channel
/// (alpha included, for RGBA) differs from the colour's by more than `threshold`. `equalHorizontal` cuts the
/// same amount from left and right (the smaller of the two), `equalVertical` the same from top and bottom.
/// An image that is all border is left as it is.
public struct TrimTransformer: FrameTransformer {
    /// Largest per-channel difference (0...255) that still counts as the border colour.
    public let threshold: Double
    /// The border colour, or nil for the top-left pixel's.
    public let color: RGBAColor?
    /// Whether left and right lose the same number of columns.
    public let equalHorizontal: Bool
    /// Whether top and bottom lose the same number of rows.
    public let equalVertical: Bool

    /// Trims borders within `threshold` (0...255, 10 by default as imgproxy) of `color` (the top-left pixel's
    /// when nil). Throws `ImageError/invalidParameter(name:reason:)` for a threshold outside 0...255.
    public init(
        threshold: Double = 10, color: RGBAColor? = nil, equalHorizontal: Bool = false,
        equalVertical: Bool = false
    ) throws(ImageError) {
        guard (0...255).contains(threshold) else {
            throw .invalidParameter(name: "trim threshold", reason: "\(threshold) is not within 0...255")
        }
        (self.threshold, self.color) = (threshold, color)
        (self.equalHorizontal, self.equalVertical) = (equalHorizontal, equalVertical)
    }

    /// `trim(threshold,color|auto,h?v?)`.
    public var transformerKey: String {
        "trim(\(threshold),\(color.map(\.description) ?? "auto"),\(equalHorizontal ? "h" : "")\(equalVertical ? "v" : ""))"
    }

    /// The image without its uniform border. An animation is cut by the rectangle found on its first
    /// frame, so that every frame keeps one size (imgproxy looks at the first frame too).
    public func transformed(_ image: Image) throws(ImageError) -> Image {
        let poster =
            image.isOrientationApplied || image.orientation == .up
            ? image.pixels : image.pixels.applyingOrientation(image.orientation)
        let kept = rectangle(in: poster)
        guard kept.width > 0, kept.height > 0 else { return image }
        return try CropTransformer(x: kept.x, y: kept.y, width: kept.width, height: kept.height).transformed(image)
    }

    /// The trimmed image, or nil when it cannot be made (the manager keeps the original).
    public func transform(_ image: Image, forKey key: String) -> Image? {
        try? transformed(image)
    }

    /// The pixels without their uniform border.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let kept = rectangle(in: pixels)
        if kept.x == 0 && kept.y == 0 && kept.width == pixels.width && kept.height == pixels.height { return pixels }
        return pixels.cropped(x: kept.x, y: kept.y, width: kept.width, height: kept.height)
    }

    /// The part of `pixels` left once the border is cut (all of it when everything is border).
    func rectangle(in pixels: PixelBuffer) -> (x: Int, y: Int, width: Int, height: Int) {
        let whole = (0, 0, pixels.width, pixels.height)
        guard pixels.width > 0, pixels.height > 0 else { return whole }
        let border =
            color
            ?? {
                let p = pixels.rgba(x: 0, y: 0); return RGBAColor(red: p.r, green: p.g, blue: p.b, alpha: p.a)
            }()
        let reference = border.bytes(for: pixels.layout).map(Int.init)
        // A difference d matches when d <= threshold; bytes are whole numbers, so compare with the floor.
        let limit = Int(threshold.rounded(.down))
        let bpp = pixels.layout.bytesPerPixel
        let isBorder: (Int, Int) -> Bool = { x, y in
            let o = y * pixels.bytesPerRow + x * bpp
            for c in 0..<bpp where abs(Int(pixels.bytes[o + c]) - reference[c]) > limit { return false }
            return true
        }
        func rowIsBorder(_ y: Int) -> Bool { (0..<pixels.width).allSatisfy { isBorder($0, y) } }
        guard let top = (0..<pixels.height).first(where: { !rowIsBorder($0) }) else { return whole }
        let bottom = (0..<pixels.height).reversed().first(where: { !rowIsBorder($0) })!
        func columnIsBorder(_ x: Int) -> Bool { (top...bottom).allSatisfy { isBorder(x, $0) } }
        let left = (0..<pixels.width).first(where: { !columnIsBorder($0) })!
        let right = (0..<pixels.width).reversed().first(where: { !columnIsBorder($0) })!
        var cut = (left: left, right: pixels.width - 1 - right, top: top, bottom: pixels.height - 1 - bottom)
        if equalHorizontal { cut.left = min(cut.left, cut.right); cut.right = cut.left }
        if equalVertical { cut.top = min(cut.top, cut.bottom); cut.bottom = cut.top }
        return (cut.left, cut.top, pixels.width - cut.left - cut.right, pixels.height - cut.top - cut.bottom)
    }
}
