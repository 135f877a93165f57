import WebImageCore

/// Turns colour into gray by BT.601 luma (0.299 R + 0.587 G + 0.114 B), the weights of JPEG, PNG and
/// Pillow's `convert("L")`, whose results it matches exactly.
///
/// RGB becomes a `.gray8` buffer (a third of the bytes, and encoders write it as gray); RGBA stays `.rgba8`
/// with equal red, green and blue and its alpha kept; gray comes back unchanged.
public struct GrayscaleTransformer: FrameTransformer {
    /// The grayscale transformer; it has no parameters.
    public init() {}

    /// `grayscale`.
    public var transformerKey: String { "grayscale" }

    /// The gray frame, same size.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let source = pixels.packed()
        let count = source.width * source.height
        switch source.layout {
        case .gray8:
            return source
        case .rgb8:
            let bytes = source.bytes.withUnsafeBufferPointer { rgb in
                [UInt8](unsafeUninitializedCapacity: count) { gray, initialized in
                    for i in 0..<count { gray[i] = Luma.of(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) }
                    initialized = count
                }
            }
            return PixelBuffer(width: source.width, height: source.height, layout: .gray8, bytes: bytes)
        case .rgba8:
            var bytes = source.bytes
            bytes.withUnsafeMutableBufferPointer { rgba in
                for i in stride(from: 0, to: count * 4, by: 4) {
                    let luma = Luma.of(rgba[i], rgba[i + 1], rgba[i + 2])
                    rgba[i] = luma; rgba[i + 1] = luma; rgba[i + 2] = luma
                }
            }
            return PixelBuffer(width: source.width, height: source.height, layout: .rgba8, bytes: bytes)
        }
    }
}
