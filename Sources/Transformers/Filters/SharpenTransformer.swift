import WebImageCore

/// Unsharp mask: the usual step after a downscale, and imgproxy's `sh:%sigma`.
///
/// Each colour sample moves away from its gaussian-blurred value: `out = in + amount * (in - blurred)`,
/// rounded and clamped, wherever `|in - blurred|` is more than `threshold` levels (of 255); elsewhere it is
/// left as it is, so flat areas and fine noise stay untouched. As in Pillow's `UnsharpMask`
/// (`radius` = sigma, `percent` = 100 * amount, the same threshold). `sigma` means what imgproxy's
/// sharpen sigma means, the size of the blur mask in pixels: about 0.5 for screen images, 1 to 1.5 for
/// print. Alpha is kept as it is; the blur behind the mask is premultiplied, so edges next to transparent
/// pixels do not pick up dark halos.
///
/// ```swift
/// let pipeline = PipelineTransformer([try ResizeTransformer(width: 256, height: 256),
///                                     try SharpenTransformer(sigma: 0.5)])
/// ```
public struct SharpenTransformer: FrameTransformer {
    /// The largest sigma accepted (sharpening with a wider mask is a contrast change, not sharpening).
    public static let maximumSigma = 100.0
    /// The largest amount accepted: 10 times the difference already clips nearly every edge to black or white.
    public static let maximumAmount = 10.0

    /// The blur mask's standard deviation in pixels.
    public let sigma: Double
    /// How much of the difference from the blurred image is added: 1 adds it once (Pillow's 100 %).
    public let amount: Double
    /// Differences of at most this many levels (0...255) are not sharpened.
    public let threshold: Double

    /// An unsharp mask; `sigma` greater than 0 (at most ``maximumSigma``), `amount` 0...``maximumAmount``,
    /// `threshold` 0...255.
    public init(sigma: Double, amount: Double = 1, threshold: Double = 0) throws(ImageError) {
        self.sigma = try FilterParameter.checked(sigma, name: "sigma", in: 0...Self.maximumSigma)
        if self.sigma == 0 { throw .invalidParameter(name: "sigma", reason: "must be greater than 0") }
        self.amount = try FilterParameter.checked(amount, name: "amount", in: 0...Self.maximumAmount)
        self.threshold = try FilterParameter.checked(threshold, name: "threshold", in: 0...255)
    }

    /// `sharpen(sigma:S,amount:A,threshold:T)`.
    public var transformerKey: String {
        "sharpen(sigma:\(FilterParameter.keyText(sigma)),amount:\(FilterParameter.keyText(amount))"
            + ",threshold:\(FilterParameter.keyText(threshold)))"
    }

    /// The sharpened frame, same size and layout.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let source = pixels.packed()
        let blurred = GaussianBlur.blurred(source, sigma: sigma)
        let channels = source.layout.bytesPerPixel
        let colourChannels = source.layout.hasAlpha ? 3 : channels
        let amount = Float(self.amount), threshold = Float(self.threshold)
        var bytes = source.bytes
        blurred.bytes.withUnsafeBufferPointer { blurred in
            bytes.withUnsafeMutableBufferPointer { bytes in
                var pixel = 0
                while pixel < bytes.count {
                    for c in 0..<colourChannels {
                        let original = Float(bytes[pixel + c])
                        let difference = original - Float(blurred[pixel + c])
                        if abs(difference) > threshold {
                            bytes[pixel + c] = FloatRow.byte(original + amount * difference)
                        }
                    }
                    pixel += channels
                }
            }
        }
        return PixelBuffer(width: source.width, height: source.height, layout: source.layout, bytes: bytes)
    }
}
