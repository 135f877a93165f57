import Foundation
import WebImageCore

/// Gaussian blur of 8-bit pixels: the engine behind ``BlurTransformer`` and ``SharpenTransformer``.
///
/// Small sigmas convolve with a sampled gaussian kernel, one horizontal and one vertical pass
/// (`GaussianBlur+Convolution.swift`); from ``recursiveFromSigma`` on, a third-order recursive filter runs
/// forward and backward along rows and columns (`GaussianBlur+Recursive.swift`), whose cost does not grow
/// with sigma. Both work on Float samples eight at a time, RGBA premultiplied, and repeat the edge pixels
/// beyond the borders (as Pillow and libvips do). Large images are split into as many bands as there are
/// processors.
enum GaussianBlur {
    /// The sigma from which the recursive filter replaces the convolution: there its error against a true
    /// gaussian is at most about 3 levels of 255 (and falls as sigma grows), while the convolution's
    /// 2 * 3 * sigma + 1 taps start to cost more than the recursion's fixed dozen operations per sample.
    static let recursiveFromSigma = 5.0

    /// Below this sigma a neighbour's weight, exp(-1 / (2 sigma²)) < 1e-21, is nothing: the blur is the
    /// identity. Far smaller sigmas would underflow sigma² to 0 and turn the weights into NaN.
    static let identityBelowSigma = 0.1

    /// Images with fewer samples than this run on one thread: splitting costs more than it saves.
    static let parallelMinimumSamples = 1 << 18

    /// `pixels` blurred by a gaussian of standard deviation `sigma` (in pixels; > 0), same size and layout.
    static func blurred(_ pixels: PixelBuffer, sigma: Double) -> PixelBuffer {
        if pixels.width == 0 || pixels.height == 0 || sigma < identityBelowSigma { return pixels }
        return sigma < recursiveFromSigma ? convolved(pixels, sigma: sigma) : recursive(pixels, sigma: sigma)
    }

    /// How many parts to split `count` rows or columns of an image with `samples` samples into.
    static func partCount(samples: Int, count: Int) -> Int {
        guard samples >= parallelMinimumSamples else { return 1 }
        return max(1, min(ProcessInfo.processInfo.activeProcessorCount, count))
    }

    /// The `part`-th of `parts` nearly equal slices of `0..<count`.
    static func slice(_ part: Int, of parts: Int, count: Int) -> Range<Int> {
        (part * count / parts)..<((part + 1) * count / parts)
    }

    /// A new buffer of `pixels`' size and layout whose tightly packed bytes `fill` writes.
    static func makeBuffer(
        like pixels: PixelBuffer,
        _ fill: (UnsafeMutablePointer<UInt8>) -> Void
    ) -> PixelBuffer {
        let rowBytes = pixels.width * pixels.layout.bytesPerPixel
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * pixels.height) { buffer, initialized in
            fill(buffer.baseAddress!)  // non-nil: width and height are positive here
            initialized = rowBytes * pixels.height
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, layout: pixels.layout, bytes: bytes)
    }
}
