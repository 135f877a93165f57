import WebImageCore

/// Grows the canvas to at least `width` x `height`, placing the image by a ``Gravity`` on a background
/// colour (imgproxy's `extend`); a side the image already reaches is left as it is, and nothing is cut.
///
/// ```swift
/// let letterboxed = try ExtendTransformer(width: 400, height: 400, background: .black)
/// ```
public struct ExtendTransformer: FrameTransformer {
    /// Smallest width of the output; 0 leaves the width as it is.
    public let width: Int
    /// Smallest height of the output; 0 leaves the height as it is.
    public let height: Int
    /// Where the image sits on the canvas (``Gravity/smart`` means centre).
    public let gravity: Gravity
    /// Colour of the added pixels.
    public let background: RGBAColor

    /// Grows the canvas to at least `width` x `height` (0 for a side means "keep it"; neither may be negative
    /// or over `CanvasLimit`), the image placed by `gravity` on `background`.
    public init(
        width: Int, height: Int, gravity: Gravity = .center, background: RGBAColor = .transparent
    ) throws(ImageError) {
        guard width >= 0, height >= 0 else {
            throw .invalidParameter(name: "extend size", reason: "\(width)x\(height) must not be negative")
        }
        do { try CanvasLimit.check(width: width, height: height) } catch {
            throw .invalidParameter(
                name: "extend size", reason: "\(width)x\(height) is over \(CanvasLimit.maxPixelCount) pixels")
        }
        try gravity.validate()
        (self.width, self.height, self.gravity, self.background) = (width, height, gravity, background)
    }

    /// `extend(WxH,gravity,color)`.
    public var transformerKey: String { "extend(\(width)x\(height),\(gravity),\(background))" }

    /// The image on a canvas at least `width` x `height`.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let canvasWidth = max(width, pixels.width), canvasHeight = max(height, pixels.height)
        if canvasWidth == pixels.width && canvasHeight == pixels.height { return pixels }
        try CanvasLimit.check(width: canvasWidth, height: canvasHeight)
        let origin = gravity.regionOrigin(
            regionWidth: pixels.width, regionHeight: pixels.height,
            containerWidth: canvasWidth, containerHeight: canvasHeight)
        return pixels.placed(
            onCanvasWidth: canvasWidth, height: canvasHeight, x: origin.x, y: origin.y,
            background: background)
    }
}
