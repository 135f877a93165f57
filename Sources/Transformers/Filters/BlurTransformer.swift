import WebImageCore

/// Gaussian blur, as SDWebImage's blur transformer, Nuke's `GaussianBlur` and imgproxy's `bl:%sigma`.
///
/// `sigma` is the gaussian's standard deviation in pixels. Below sigma 5 the image is convolved with the
/// sampled kernel (3 sigmas each side); from 5 on, a recursive filter takes over whose time does not grow
/// with sigma up to 50 (within about 2 levels of 255 of a true gaussian at sigma 10), and beyond 50 grows
/// with the square of sigma / 50 (see ``maximumSigma``). Pixels beyond the edges
/// repeat the edge; RGBA is blurred premultiplied, so transparent pixels leave no dark fringe.
///
/// ```swift
/// let blurred = try BlurTransformer(sigma: 10).transformed(image)
/// ```
public struct BlurTransformer: FrameTransformer {
    /// The largest sigma accepted: past the point where a web image becomes a colour wash, and it bounds
    /// the work: above sigma 50 the recursive filter runs in passes (16 at this sigma).
    public static let maximumSigma = 200.0

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
