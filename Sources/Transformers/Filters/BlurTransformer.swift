import WebImageCore

/// Gaussian blur, as SDWebImage's blur transformer, Nuke's `GaussianBlur` and imgproxy's `bl:%sigma`.
///
/// `sigma` is the gaussian's standard deviation in pixels. Below sigma 5 the image is convolved with the
/// sampled kernel (3 sigmas each side); from 5 on, a recursive filter takes over whose time does not grow
/// with sigma (within about 1.6 levels of 255 of a true gaussian at sigma 10). Pixels beyond the edges
/// repeat the edge; RGBA is blurred premultiplied, so transparent pixels leave no dark fringe.
///
/// ```swift
/// let blurred = try BlurTransformer(sigma: 10).transformed(image)
/// ```
public struct BlurTransformer: FrameTransformer {
    /// The largest sigma accepted: far past the point where a web image becomes one flat colour, and it
    /// bounds the rows the recursive filter runs past each edge.
    public static let maximumSigma = 1000.0

    /// The gaussian's standard deviation in pixels.
    public let sigma: Double

    /// A blur of `sigma` pixels (greater than 0, at most ``maximumSigma``).
    public init(sigma: Double) throws(ImageError) {
        self.sigma = try FilterParameter.checked(sigma, name: "sigma", in: 0...Self.maximumSigma)
        if self.sigma == 0 { throw .invalidParameter(name: "sigma", reason: "must be greater than 0") }
    }

    /// `blur(sigma:S)`.
    public var transformerKey: String { "blur(sigma:\(FilterParameter.keyText(sigma)))" }

    /// The blurred frame, same size and layout.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        GaussianBlur.blurred(pixels, sigma: sigma)
    }
}
