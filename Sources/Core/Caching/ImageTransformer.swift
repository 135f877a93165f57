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
    public let transformers: [any ImageTransformer]
    public init(_ transformers: [any ImageTransformer]) { self.transformers = transformers }
    public var transformerKey: String { transformers.map(\.transformerKey).joined(separator: "-") }
    public func transform(_ image: Image, forKey key: String) -> Image? {
        transformers.reduce(image) { current, transformer in transformer.transform(current, forKey: key) ?? current }
    }
}

/// Resizes to an exact size with the area-average resampler.
public struct ResizingTransformer: ImageTransformer {
    public let size: PixelSize
    public init(size: PixelSize) { self.size = size }
    public var transformerKey: String { "resize(\(size.width)x\(size.height))" }
    public func transform(_ image: Image, forKey key: String) -> Image? {
        var out = Image(pixels: ImageResampler.resample(image.pixels, width: size.width, height: size.height),
                        format: image.format, scale: image.scale, metadata: image.metadata)
        out.orientation = image.orientation
        return out
    }
}

/// A ``ImageTransformer`` made from a closure.
public struct TransformerBlock: ImageTransformer {
    public let transformerKey: String
    private let body: @Sendable (Image) -> Image?
    public init(key: String, _ body: @escaping @Sendable (Image) -> Image?) {
        self.transformerKey = key
        self.body = body
    }
    public func transform(_ image: Image, forKey key: String) -> Image? { body(image) }
}
