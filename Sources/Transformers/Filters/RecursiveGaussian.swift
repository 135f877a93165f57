import Foundation

/// The coefficients of Young and van Vliet's third-order recursive gaussian ("Recursive implementation of
/// the Gaussian filter", Signal Processing 44, 1995): run forward then backward along a line, it
/// approximates a gaussian of `sigma` at a cost that does not grow with sigma.
///
/// Measured on a photo against a true gaussian in float64 (scripts/reference/filter-reference.py has the method):
/// at sigma 10 the largest difference is about 1.6 levels of 255 and the mean 0.35; below sigma 5 the
/// approximation drifts (3 levels at sigma 5, 6 at sigma 2), which is why ``GaussianBlur`` convolves
/// with a sampled kernel there.
///
/// In Float the filter stays accurate up to ``maximumSigma``: its poles approach 1 as sigma grows, and
/// beyond that the rounding of the coefficients moves them too far (near sigma 200 it can make the filter
/// unstable). A larger sigma runs the filter ``passes(sigma:)`` times with a smaller one, since gaussians
/// compose: k passes of sigma / sqrt(k) make one of sigma.
struct RecursiveGaussian: Sendable {
    /// The largest sigma one pass runs with: there `1 - (c1 + c2 + c3)` is still 100 times the rounding
    /// error of the Float coefficients.
    static let maximumSigma = 50.0

    /// Weights of the previous three outputs (already divided by the paper's b0); the input's weight is
    /// `1 - c1 - c2 - c3`, which the filter never computes (see `VectorLoops.recursiveStep`).
    let c1: Float, c2: Float, c3: Float

    init(sigma: Double) {
        // The paper's fit of q to sigma, in its two ranges (equations 11b and 11a).
        let q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330 : 3.97156 - 4.14554 * (1 - 0.26891 * sigma).squareRoot()
        let q2 = q * q, q3 = q2 * q
        let b0 = 1.57825 + 2.44413 * q + 1.4281 * q2 + 0.422205 * q3
        let b1 = 2.44413 * q + 2.85619 * q2 + 1.26661 * q3
        let b2 = -(1.4281 * q2 + 1.26661 * q3)
        let b3 = 0.422205 * q3
        c1 = Float(b1 / b0); c2 = Float(b2 / b0); c3 = Float(b3 / b0)
    }

    /// How many passes a blur of `sigma` takes, each with `sigma / sqrt(passes)`, at most ``maximumSigma``.
    static func passes(sigma: Double) -> Int {
        max(1, Int(((sigma / maximumSigma) * (sigma / maximumSigma)).rounded(.up)))
    }

    /// How far past the end of a line of `length` samples the filter runs on the repeated edge sample, so
    /// that the backward pass starts from a settled state: four sigmas, where a gaussian's tail is below
    /// 0.01 % of its peak, but no more than twice the line plus ``edgeRunSlack``, which bounds the memory
    /// a huge sigma on a small image takes (the image is nearly flat by then, and the error small).
    static func edgeRun(sigma: Double, length: Int) -> Int {
        min(Int((4 * sigma).rounded(.up)), 2 * length + edgeRunSlack)
    }

    /// Samples the edge run may always take, however short the line.
    static let edgeRunSlack = 64
}
