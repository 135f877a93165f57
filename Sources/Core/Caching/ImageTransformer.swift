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

/// Resizes to an exact size with the area-average resampler. A width or height of 0 keeps the aspect
/// ratio from the other side (as ``DecodeOptions/thumbnailPixelSize`` reads 0); both 0, a negative side
/// or an empty image leave the image as it is (``transform(_:forKey:)`` returns nil).
public struct ResizingTransformer: ImageTransformer {
    public let size: PixelSize
    public init(size: PixelSize) { self.size = size }
    public var transformerKey: String { "resize(\(size.width)x\(size.height))" }
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard let target = targetSize(width: image.width, height: image.height) else { return nil }
        var out = Image(pixels: ImageResampler.resample(image.pixels, width: target.width, height: target.height),
                        format: image.format, scale: image.scale, metadata: image.metadata)
        out.orientation = image.orientation
        return out
    }

    /// The output size for a `width` x `height` image, nil when there is nothing to do.
    private func targetSize(width: Int, height: Int) -> PixelSize? {
        guard width > 0, height > 0, size.width >= 0, size.height >= 0, size.width > 0 || size.height > 0 else {
            return nil
        }
        let aspect = Double(width) / Double(height)
        let w = size.width > 0 ? Double(size.width) : max(1, (Double(size.height) * aspect).rounded())
        let h = size.height > 0 ? Double(size.height) : max(1, (Double(size.width) / aspect).rounded())
        // A side derived from a huge one could exceed Int; no image that large can be allocated anyway.
        let largestSide = Double(Int32.max)
        guard w <= largestSide, h <= largestSide else { return nil }
        return PixelSize(width: Int(w), height: Int(h))
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
