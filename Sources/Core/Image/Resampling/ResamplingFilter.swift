import Foundation

/// The kernel a resample weighs source pixels with: what decides sharpness, ringing and speed.
///
/// Downscaling stretches the kernel by the scale factor (so every source pixel counts); upscaling uses
/// it as is. The names and kernels are the ones Pillow, libvips and ImageMagick use, so results compare.
///
/// ```swift
/// let small = ImageResampler.resample(photo, width: 640, height: 480, filter: .lanczos3)
/// ```
public enum ResamplingFilter: String, Sendable, Hashable, CaseIterable {
    /// The source pixel under each output pixel's centre: blocky, exact colours, for pixel art and masks.
    case nearest
    /// Linear interpolation (a triangle kernel, radius 1): soft, cheap.
    case bilinear
    /// Mitchell–Netravali cubic (B = C = 1/3): a balance of blur and ringing; a good upscaler.
    case mitchell
    /// Catmull–Rom cubic (B = 0, C = 1/2; Keys' a = -0.5, Pillow's `BICUBIC`): sharper than Mitchell.
    case catmullRom
    /// Lanczos windowed sinc, radius 3: the sharpest with little aliasing; the default for downscaling.
    case lanczos3
    /// Area average: each output pixel is the mean of the source area it covers (fractional edges
    /// weighted by coverage). No ringing; a little soft. What thumbnails used before Lanczos.
    case box

    /// How far from the centre, in source pixels at scale 1, the kernel is non-zero.
    var support: Double {
        switch self {
        case .nearest, .box: 0.5
        case .bilinear: 1
        case .mitchell, .catmullRom: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's value at `x` (in source pixels at scale 1).
    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .nearest, .box:
            return x <= 0.5 ? 1 : 0
        case .bilinear:
            return x < 1 ? 1 - x : 0
        case .mitchell:
            return Self.cubic(x, b: 1.0 / 3, c: 1.0 / 3)
        case .catmullRom:
            return Self.cubic(x, b: 0, c: 0.5)
        case .lanczos3:
            guard x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        }
    }

    private static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }

    /// The Mitchell–Netravali family of cubics with parameters `b` and `c`, for `x` ≥ 0.
    private static func cubic(_ x: Double, b: Double, c: Double) -> Double {
        let x2 = x * x, x3 = x2 * x
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x3 + (-18 + 12 * b + 6 * c) * x2 + (6 - 2 * b)) / 6
        }
        if x < 2 {
            return ((-b - 6 * c) * x3 + (6 * b + 30 * c) * x2 + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}
