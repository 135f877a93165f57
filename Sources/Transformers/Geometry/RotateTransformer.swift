import Foundation
import WebImageCore

/// Turns the image clockwise by any angle (imgproxy's `rotate`, which takes multiples of 90).
///
/// Multiples of 90 degrees only move pixels (in Swift), so they are exact and the size swaps for 90 and
/// 270. Any other angle grows the canvas to hold the whole turned image (as Pillow's
/// `rotate(expand: True)`, with the same output size), fills the corners with `background` and samples
/// bilinearly with premultiplied alpha through pixman, whose SIMD bilinear path is faster than a Swift
/// sampler even with the conversions to and from its pixel format; the image's edges are antialiased
/// against the background. The output layout holds both the image and the background (a
/// translucent background makes RGBA).
///
/// ```swift
/// let tilted = try RotateTransformer(degrees: 12.5, background: .white)
/// ```
public struct RotateTransformer: FrameTransformer {
    /// The clockwise angle in degrees, normalised to 0..<360.
    public let degrees: Double
    /// Colour of the corners an arbitrary angle uncovers (unused for multiples of 90).
    public let background: RGBAColor

    /// Turns clockwise by `degrees` (any finite value; negative turns counter-clockwise), uncovered corners
    /// filled with `background` (transparent by default). Throws `ImageError/invalidParameter(name:reason:)`
    /// for an infinite or NaN angle.
    public init(degrees: Double, background: RGBAColor = .transparent) throws(ImageError) {
        guard degrees.isFinite else {
            throw .invalidParameter(name: "rotation", reason: "\(degrees) degrees is not finite")
        }
        var normalised = degrees.truncatingRemainder(dividingBy: 360)
        if normalised < 0 { normalised += 360 }
        if normalised == 360 || normalised == 0 { normalised = 0 }  // also turns -0 into 0 for the key
        self.degrees = normalised
        self.background = background
    }

    /// `rotate(degrees)` for multiples of 90, `rotate(degrees,color)` otherwise.
    public var transformerKey: String {
        quarterTurns != nil ? "rotate(\(degrees))" : "rotate(\(degrees),\(background))"
    }

    /// Quarter turns clockwise when the angle is a multiple of 90, else nil.
    var quarterTurns: Int? {
        degrees.truncatingRemainder(dividingBy: 90) == 0 ? Int(degrees / 90) : nil
    }

    /// The turned pixels.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        switch quarterTurns {
        case 0: return pixels
        case 1:
            return pixels.remapped(width: pixels.height, height: pixels.width) { x, y in (y, pixels.height - 1 - x) }
        case 2:
            return pixels.remapped(width: pixels.width, height: pixels.height) { x, y in
                (pixels.width - 1 - x, pixels.height - 1 - y)
            }
        case 3: return pixels.remapped(width: pixels.height, height: pixels.width) { x, y in (pixels.width - 1 - y, x) }
        default:
            let rotation = Rotation(degrees: degrees, sourceWidth: pixels.width, sourceHeight: pixels.height)
            try CanvasLimit.check(width: rotation.width, height: rotation.height)
            return try PixmanRotation(rotation).apply(to: pixels, background: background)
        }
    }
}

/// An arbitrary clockwise rotation about the image centre onto a canvas holding the whole result, as an
/// output-to-input affine map in pixel coordinates (pixel centres at half-integers).
struct Rotation {
    /// Output size.
    let width: Int, height: Int
    /// Input point of output point (x, y): (a x + b y + c, d x + e y + f).
    let a: Double, b: Double, c: Double, d: Double, e: Double, f: Double

    /// Pillow's `rotate(-degrees, expand=True)` geometry: the same size and mapping, so results compare
    /// pixel for pixel. Cosine and sine are rounded to 15 decimals as Pillow does, so that 90-degree-like
    /// angles give whole sizes.
    init(degrees: Double, sourceWidth: Int, sourceHeight: Int) {
        let radians = degrees * .pi / 180
        func rounded15(_ v: Double) -> Double { (v * 1e15).rounded() / 1e15 }
        let cosine = rounded15(cos(radians)), sine = rounded15(sin(radians))
        let (w, h) = (Double(sourceWidth), Double(sourceHeight))
        var m = [cosine, sine, 0, -sine, cosine, 0]
        func map(_ x: Double, _ y: Double) -> (Double, Double) {
            (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5])
        }
        (m[2], m[5]) = map(-w / 2, -h / 2)
        m[2] += w / 2
        m[5] += h / 2
        let corners = [(0.0, 0.0), (w, 0), (w, h), (0, h)].map { map($0.0, $0.1) }
        let xs = corners.map(\.0), ys = corners.map(\.1)
        let newWidth = Int(xs.max()!.rounded(.up) - xs.min()!.rounded(.down))
        let newHeight = Int(ys.max()!.rounded(.up) - ys.min()!.rounded(.down))
        (m[2], m[5]) = map(-Double(newWidth - sourceWidth) / 2, -Double(newHeight - sourceHeight) / 2)
        (width, height) = (max(1, newWidth), max(1, newHeight))
        (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
    }
}
