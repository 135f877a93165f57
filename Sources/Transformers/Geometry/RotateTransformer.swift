import Foundation
import WebImageCore

/// Turns the image clockwise by any angle (imgproxy's `rotate`, which takes multiples of 90).
///
/// Multiples of 90 degrees only move pixels, so they are exact and the size swaps for 90 and 270. Any
/// other angle grows the canvas to hold the whole turned image (as Pillow's `rotate(expand: True)`, with
/// the same output size), fills the corners with `background` and samples bilinearly with premultiplied
/// alpha; the image's edges are antialiased against the background. The output layout holds both the
/// image and the background (a translucent background makes RGBA).
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
    /// filled with `background` (transparent by default). Throws ``ImageError/invalidParameter(name:reason:)``
    /// for an infinite or NaN angle.
    public init(degrees: Double, background: RGBAColor = .transparent) throws(ImageError) {
        guard degrees.isFinite else { throw .invalidParameter(name: "rotation", reason: "\(degrees) degrees is not finite") }
        var normalised = degrees.truncatingRemainder(dividingBy: 360)
        if normalised < 0 { normalised += 360 }
        if normalised == 360 || normalised == 0 { normalised = 0 }   // also turns -0 into 0 for the key
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
        case 1: return pixels.remapped(width: pixels.height, height: pixels.width) { x, y in (y, pixels.height - 1 - x) }
        case 2: return pixels.remapped(width: pixels.width, height: pixels.height) { x, y in
            (pixels.width - 1 - x, pixels.height - 1 - y) }
        case 3: return pixels.remapped(width: pixels.height, height: pixels.width) { x, y in (pixels.width - 1 - y, x) }
        default:
            let rotation = Rotation(degrees: degrees, sourceWidth: pixels.width, sourceHeight: pixels.height)
            try CanvasLimit.check(width: rotation.width, height: rotation.height)
            return rotation.apply(to: pixels, background: background)
        }
    }
}

/// An arbitrary clockwise rotation about the image centre onto a canvas holding the whole result, as an
/// output-to-input affine map.
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
        func map(_ x: Double, _ y: Double) -> (Double, Double) { (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]) }
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

    /// The rotated image: each output pixel centre mapped back into the input and sampled bilinearly
    /// between the four nearest pixel centres, pixels outside the input counting as `background`;
    /// premultiplied when there is alpha.
    func apply(to pixels: PixelBuffer, background: RGBAColor) -> PixelBuffer {
        let layout = pixels.layout.holding(background)
        let source = pixels.converted(to: layout).packed()
        var out = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        source.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                switch layout {
                case .gray8: sample(src, source.width, source.height, into: dst, Opaque<One>(background))
                case .rgb8: sample(src, source.width, source.height, into: dst, Opaque<Three>(background))
                case .rgba8: sample(src, source.width, source.height, into: dst, Premultiplied(background))
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }

    /// The sampling loop, specialised per pixel kind so the inner loop has no per-channel branching.
    private func sample<Kind: BilinearPixel>(_ src: UnsafeBufferPointer<UInt8>, _ sw: Int, _ sh: Int,
                                             into dst: UnsafeMutableBufferPointer<UInt8>, _ kind: Kind) {
        let channels = Kind.channels
        for y in 0..<height {
            let cy = Double(y) + 0.5
            // Input position of the first pixel centre of the row, relative to input pixel centres; each
            // step right adds (a, d).
            var sx = a * 0.5 + b * cy + c - 0.5, sy = d * 0.5 + e * cy + f - 0.5
            var o = y * width * channels
            for _ in 0..<width {
                defer { sx += a; sy += d; o += channels }
                let fx0 = sx.rounded(.down), fy0 = sy.rounded(.down)
                guard fx0 >= -1, fy0 >= -1, fx0 < Double(sw), fy0 < Double(sh) else {
                    kind.storeBackground(dst, o)
                    continue
                }
                let x0 = Int(fx0), y0 = Int(fy0)
                let fx = Float(sx - fx0), fy = Float(sy - fy0)
                let w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy
                if x0 >= 0, y0 >= 0, x0 + 1 < sw, y0 + 1 < sh {
                    let s00 = (y0 * sw + x0) * channels, s01 = s00 + sw * channels
                    kind.store(dst, o, src, s00, s00 + channels, s01, s01 + channels, w00, w10, w01, w11)
                } else {
                    func index(_ x: Int, _ y: Int) -> Int { x >= 0 && y >= 0 && x < sw && y < sh ? (y * sw + x) * channels : -1 }
                    kind.store(dst, o, src, index(x0, y0), index(x0 + 1, y0), index(x0, y0 + 1), index(x0 + 1, y0 + 1),
                               w00, w10, w01, w11)
                }
            }
        }
    }
}

/// How one kind of pixel is mixed by bilinear sampling; an index of -1 stands for the background.
private protocol BilinearPixel {
    static var channels: Int { get }
    func storeBackground(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int)
    func store(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int, _ src: UnsafeBufferPointer<UInt8>,
               _ i00: Int, _ i10: Int, _ i01: Int, _ i11: Int, _ w00: Float, _ w10: Float, _ w01: Float, _ w11: Float)
}

private protocol ChannelCount { static var count: Int { get } }
private enum One: ChannelCount { static var count: Int { 1 } }
private enum Three: ChannelCount { static var count: Int { 3 } }

/// Gray or RGB: channels mix directly.
private struct Opaque<Count: ChannelCount>: BilinearPixel {
    static var channels: Int { Count.count }
    let background: [Float]
    let backgroundBytes: [UInt8]
    init(_ color: RGBAColor) {
        backgroundBytes = color.bytes(for: Count.count == 1 ? .gray8 : .rgb8)
        background = backgroundBytes.map(Float.init)
    }
    func storeBackground(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int) {
        for ch in 0..<Count.count { dst[o + ch] = backgroundBytes[ch] }
    }
    @inline(__always)
    func store(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int, _ src: UnsafeBufferPointer<UInt8>,
               _ i00: Int, _ i10: Int, _ i01: Int, _ i11: Int, _ w00: Float, _ w10: Float, _ w01: Float, _ w11: Float) {
        for ch in 0..<Count.count {
            @inline(__always) func value(_ i: Int) -> Float { i < 0 ? background[ch] : Float(src[i + ch]) }
            let mixed = value(i00) * w00 + value(i10) * w10 + value(i01) * w01 + value(i11) * w11
            dst[o + ch] = UInt8(min(255, mixed.rounded()))
        }
    }
}

/// RGBA: colour channels mix weighted by alpha (premultiplied) and are divided back by the mixed alpha.
private struct Premultiplied: BilinearPixel {
    static var channels: Int { 4 }
    let background: (r: Float, g: Float, b: Float, a: Float)
    let backgroundBytes: [UInt8]
    init(_ color: RGBAColor) {
        backgroundBytes = [color.red, color.green, color.blue, color.alpha]
        let a = Float(color.alpha)
        background = (Float(color.red) * a, Float(color.green) * a, Float(color.blue) * a, a)
    }
    func storeBackground(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int) {
        for ch in 0..<4 { dst[o + ch] = backgroundBytes[ch] }
    }
    @inline(__always)
    func store(_ dst: UnsafeMutableBufferPointer<UInt8>, _ o: Int, _ src: UnsafeBufferPointer<UInt8>,
               _ i00: Int, _ i10: Int, _ i01: Int, _ i11: Int, _ w00: Float, _ w10: Float, _ w01: Float, _ w11: Float) {
        // Premultiplied by alpha in 0...255 (colour * alpha, up to 65025), not divided until the end.
        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
        @inline(__always) func add(_ i: Int, _ w: Float) {
            if i < 0 {
                r += background.r * w; g += background.g * w; b += background.b * w; a += background.a * w
                return
            }
            let alpha = Float(src[i + 3]) * w
            r += Float(src[i]) * alpha; g += Float(src[i + 1]) * alpha; b += Float(src[i + 2]) * alpha; a += alpha
        }
        add(i00, w00); add(i10, w10); add(i01, w01); add(i11, w11)
        guard a > 0 else {
            for ch in 0..<4 { dst[o + ch] = 0 }
            return
        }
        dst[o] = UInt8(min(255, (r / a).rounded()))
        dst[o + 1] = UInt8(min(255, (g / a).rounded()))
        dst[o + 2] = UInt8(min(255, (b / a).rounded()))
        dst[o + 3] = UInt8(min(255, a.rounded()))
    }
}
