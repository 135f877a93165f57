import WebImageCore

/// Cuts a rectangle out of the image: either one given in pixels, or one of a given size placed by a
/// ``Gravity`` (imgproxy's `crop:width:height:gravity`).
///
/// A rectangle or size reaching past the image is cut to what the image has (a 500 x 500 crop of a
/// 300 x 200 image is the whole image), as imgproxy does.
///
/// ```swift
/// let square = try CropTransformer(width: 200, height: 200, gravity: .smart)
/// ```
public struct CropTransformer: FrameTransformer {
    /// How the rectangle is chosen.
    public enum Region: Sendable, Hashable {
        /// A fixed rectangle; its top-left corner is (`x`, `y`).
        case rectangle(x: Int, y: Int, width: Int, height: Int)
        /// A `width` x `height` rectangle placed by `gravity`.
        case gravity(Gravity, width: Int, height: Int)
    }

    /// The rectangle this transformer keeps.
    public let region: Region

    /// Keeps the `width` x `height` rectangle whose top-left corner is (`x`, `y`). `x` and `y` must not be
    /// negative, `width` and `height` must be positive.
    public init(x: Int, y: Int, width: Int, height: Int) throws(ImageError) {
        guard x >= 0, y >= 0 else { throw .invalidParameter(name: "crop origin", reason: "(\(x), \(y)) is negative") }
        try Self.validate(width: width, height: height)
        region = .rectangle(x: x, y: y, width: width, height: height)
    }

    /// Keeps a `width` x `height` rectangle placed by `gravity` (centred by default). Both sizes must be
    /// positive.
    public init(width: Int, height: Int, gravity: Gravity = .center) throws(ImageError) {
        try Self.validate(width: width, height: height)
        try gravity.validate()
        region = .gravity(gravity, width: width, height: height)
    }

    private static func validate(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .invalidParameter(name: "crop size", reason: "\(width)x\(height) must be positive both ways")
        }
    }

    /// `crop(x,y,WxH)` or `crop(WxH,gravity)`.
    public var transformerKey: String {
        switch region {
        case .rectangle(let x, let y, let width, let height): "crop(\(x),\(y),\(width)x\(height))"
        case .gravity(let gravity, let width, let height): "crop(\(width)x\(height),\(gravity))"
        }
    }

    /// The cropped image. A smart crop of an animation keeps the window found on its first frame in every
    /// frame, so the crop does not wander from frame to frame.
    public func transformed(_ image: Image) throws(ImageError) -> Image {
        guard image.animation != nil, case .gravity(.smart, _, _) = region else { return try transformedFrames(image) }
        let kept = rectangle(in: image.pixels)
        return try CropTransformer(x: kept.x, y: kept.y, width: kept.width, height: kept.height).transformedFrames(
            image)
    }

    /// The cropped image, or nil when it cannot be made (the manager keeps the original).
    public func transform(_ image: Image, forKey key: String) -> Image? {
        try? transformed(image)
    }

    /// `FrameTransformer`'s frame-by-frame transformation.
    private func transformedFrames(_ image: Image) throws(ImageError) -> Image {
        try frameByFrame(self, image)
    }

    /// The kept rectangle of `pixels`; the whole image when the rectangle starts outside it.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let rect = rectangle(in: pixels)
        if rect.x == 0 && rect.y == 0 && rect.width == pixels.width && rect.height == pixels.height { return pixels }
        return pixels.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    /// The rectangle kept from `pixels`, cut to the image.
    func rectangle(in pixels: PixelBuffer) -> (x: Int, y: Int, width: Int, height: Int) {
        switch region {
        case .rectangle(let x, let y, let width, let height):
            guard x < pixels.width, y < pixels.height else { return (0, 0, pixels.width, pixels.height) }
            return (x, y, min(width, pixels.width - x), min(height, pixels.height - y))
        case .gravity(let gravity, let width, let height):
            let w = min(width, pixels.width), h = min(height, pixels.height)
            let origin = gravity.regionOrigin(regionWidth: w, regionHeight: h, in: pixels)
            return (origin.x, origin.y, w, h)
        }
    }
}

/// `FrameTransformer`'s own `transformed(_:)` (frame by frame), for conformers that shadow it with a
/// version of their own and still need it: in a generic context the extension's method is the one called.
func frameByFrame<Transformer: FrameTransformer>(_ transformer: Transformer, _ image: Image) throws(ImageError) -> Image
{
    try transformer.transformed(image)
}
