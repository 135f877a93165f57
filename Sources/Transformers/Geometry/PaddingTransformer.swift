import WebImageCore

/// Adds a border of `background` colour around the image (imgproxy's `padding`).
///
/// The output layout holds both the image and the colour: a translucent background makes RGBA, a coloured
/// one around a gray image makes RGB.
///
/// ```swift
/// let framed = try PaddingTransformer(top: 10, right: 10, bottom: 10, left: 10, background: .white)
/// ```
public struct PaddingTransformer: FrameTransformer {
    /// Pixels added above, right of, below and left of the image.
    public let top: Int, right: Int, bottom: Int, left: Int
    /// Colour of the added pixels.
    public let background: RGBAColor

    /// Adds the given number of pixels on each side (none negative) in `background` (transparent by default).
    /// Throws `ImageError/invalidParameter(name:reason:)` for a negative side.
    public init(top: Int, right: Int, bottom: Int, left: Int, background: RGBAColor = .transparent) throws(ImageError) {
        guard top >= 0, right >= 0, bottom >= 0, left >= 0 else {
            throw .invalidParameter(
                name: "padding", reason: "\(top), \(right), \(bottom), \(left) must not be negative")
        }
        (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        self.background = background
    }

    /// `padding(top,right,bottom,left,color)`.
    public var transformerKey: String { "padding(\(top),\(right),\(bottom),\(left),\(background))" }

    /// The image on a larger canvas of the background colour. Throws
    /// `ImageError/imageTooLarge(width:height:limit:)` past `CanvasLimit`.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        if top == 0 && right == 0 && bottom == 0 && left == 0 { return pixels }
        let (width, w1) = pixels.width.addingReportingOverflow(left &+ right)
        let (height, h1) = pixels.height.addingReportingOverflow(top &+ bottom)
        guard !w1, !h1, left <= Int.max - right, top <= Int.max - bottom else {
            throw .imageTooLarge(width: Int.max, height: Int.max, limit: CanvasLimit.maxPixelCount)
        }
        try CanvasLimit.check(width: width, height: height)
        return pixels.placed(onCanvasWidth: width, height: height, x: left, y: top, background: background)
    }
}

extension PixelBuffer {
    /// This image at (`x`, `y`) on a `width` x `height` canvas of `background`, in a layout holding both.
    func placed(onCanvasWidth width: Int, height: Int, x: Int, y: Int, background: RGBAColor) -> PixelBuffer {
        let target = layout.holding(background)
        var canvas = PixelBuffer.filled(width: width, height: height, layout: target, color: background)
        canvas.paste(converted(to: target), x: x, y: y)
        return canvas
    }
}
