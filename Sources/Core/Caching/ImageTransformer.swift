import Foundation

/// Turns a loaded image into another before it is cached and shown (SDWebImage's `SDImageTransformer`).
///
/// Its ``transformerKey`` is appended to the cache key, so the transformed image is cached separately
/// from the original.
public protocol ImageTransformer: Sendable {
    /// Identifies the transformation and its parameters (`"resize(100x100)"`).
    var transformerKey: String { get }
    /// The transformed image, or nil to keep the original.
    func transform(_ image: Image, forKey key: String) -> Image?
}

/// Several transformers applied in order, with a key made of theirs.
public struct PipelineTransformer: ImageTransformer {
    /// The transformers, applied in order.
    public let transformers: [any ImageTransformer]
    /// A pipeline applying `transformers` in order.
    public init(_ transformers: [any ImageTransformer]) { self.transformers = transformers }
    public var transformerKey: String { transformers.map(\.transformerKey).joined(separator: "-") }
    public func transform(_ image: Image, forKey key: String) -> Image? {
        transformers.reduce(image) { current, transformer in transformer.transform(current, forKey: key) ?? current }
    }
}

/// Stretches an image to exactly `size` (the shape is not kept), with the Lanczos3 resampler.
///
/// For fitting inside a box, filling it with a crop, enlarging or not, and other filters, use
/// `ResizeTransformer` from the `WebImageTransformers` module. A side of 0 here takes its length from the
/// other side and the image's aspect ratio (`PixelSize(width: 0, height: 64)`: 64 px high, as wide as the
/// shape gives); both 0, or a negative side, leaves the image unchanged (`transform` returns nil).
public struct StretchTransformer: ImageTransformer {
    /// The output size; a 0 side keeps the aspect ratio.
    public let size: PixelSize
    /// A stretch to `size`.
    public init(size: PixelSize) { self.size = size }
    public var transformerKey: String { "resize(\(size.width)x\(size.height))" }
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard let target = outputSize(width: image.pixels.width, height: image.pixels.height) else { return nil }
        var out = Image(
            pixels: ImageResampler.resample(
                image.pixels, width: target.width, height: target.height,
                filter: .lanczos3),
            format: image.format, scale: image.scale, metadata: image.metadata)
        out.orientation = image.orientation
        return out
    }

    /// The size an image of `width` x `height` is stretched to, or nil when it is left as it is.
    public func outputSize(width: Int, height: Int) -> PixelSize? {
        guard size.width >= 0, size.height >= 0, size.width > 0 || size.height > 0, width > 0, height > 0 else {
            return nil
        }
        let w =
            size.width > 0
            ? Double(size.width) : max(1, (Double(size.height) * Double(width) / Double(height)).rounded())
        let h =
            size.height > 0
            ? Double(size.height) : max(1, (Double(size.width) * Double(height) / Double(width)).rounded())
        // A side derived from a huge one could exceed Int (and trap); no image that large can be allocated.
        let largestSide = Double(Int32.max)
        guard w <= largestSide, h <= largestSide else { return nil }
        return PixelSize(width: Int(w), height: Int(h))
    }
}

/// A ``ImageTransformer`` made from a closure.
public struct TransformerBlock: ImageTransformer {
    public let transformerKey: String
    private let body: @Sendable (Image) -> Image?
    /// A transformer named `key` that returns what `body` returns (nil keeps the original).
    public init(key: String, _ body: @escaping @Sendable (Image) -> Image?) {
        self.transformerKey = key
        self.body = body
    }
    public func transform(_ image: Image, forKey key: String) -> Image? { body(image) }
}
