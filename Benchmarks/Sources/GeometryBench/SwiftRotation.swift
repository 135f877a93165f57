import WebImageCore
import WebImageTransformers

/// The pure-Swift bilinear rotation RotateTransformer used before it moved to pixman, kept here as the
/// Swift side of the comparison: premultiplied Float SIMD per pixel, the same mapping as pixman's.
struct SwiftRotation {
    let width: Int, height: Int
    let a: Double, b: Double, c: Double, d: Double, e: Double, f: Double

    init(degrees: Double, sourceWidth: Int, sourceHeight: Int) {
        let (nw, nh, m) = rotation(degrees: degrees, width: sourceWidth, height: sourceHeight)
        (width, height) = (nw, nh)
        (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
    }

    /// The rotated image: each output pixel centre mapped back into the input and sampled bilinearly
    /// between the four nearest pixel centres, pixels outside the input counting as `background`;
    /// premultiplied when there is alpha.
    func apply(to pixels: PixelBuffer, background: RGBAColor) -> PixelBuffer {
        let layout = pixels.layout.holding(background)
        let source = pixels.converted(to: layout).packed()
        var out = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        let back = background.bytes(for: layout) + [UInt8](repeating: 0, count: 4 - layout.bytesPerPixel)
        let backBytes = SIMD4<UInt8>(back[0], back[1], back[2], back[3])
        source.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let plane = Plane(src: src.baseAddress!, width: source.width, height: source.height)
                switch layout {
                case .gray8:
                    sample(plane, into: dst.baseAddress!, channels: 1, premultiplied: false, background: backBytes)
                case .rgb8:
                    sample(plane, into: dst.baseAddress!, channels: 3, premultiplied: false, background: backBytes)
                case .rgba8:
                    sample(plane, into: dst.baseAddress!, channels: 4, premultiplied: true, background: backBytes)
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }

    /// The source pixels being sampled (packed rows).
    private struct Plane {
        let src: UnsafePointer<UInt8>
        let width: Int, height: Int
    }

    /// The sampling loop; inlined per layout so `channels` and `premultiplied` are constants there.
    @inline(__always)
    private func sample(
        _ plane: Plane, into dst: UnsafeMutablePointer<UInt8>, channels: Int, premultiplied: Bool,
        background: SIMD4<UInt8>
    ) {
        let (sw, sh, src) = (plane.width, plane.height, plane.src)
        let backFloat = SIMD4<Float>(background)
        // The background as it is mixed: premultiplied (colour x alpha, alpha x 255) when there is alpha.
        let backMixed =
            premultiplied
            ? SIMD4<Float>(
                backFloat[0] * backFloat[3], backFloat[1] * backFloat[3], backFloat[2] * backFloat[3],
                backFloat[3] * 255)
            : backFloat
        // One neighbour's contribution: its channels (premultiplied, scaled like backMixed) or the background.
        @inline(__always) func texel(_ x: Int, _ y: Int) -> SIMD4<Float> {
            guard x >= 0, y >= 0, x < sw, y < sh else { return backMixed }
            let s = src + (y * sw + x) * channels
            switch channels {
            case 1: return SIMD4(Float(s[0]), 0, 0, 0)
            case 3: return SIMD4(Float(s[0]), Float(s[1]), Float(s[2]), 0)
            default:
                let alpha = Float(s[3])
                return SIMD4(Float(s[0]) * alpha, Float(s[1]) * alpha, Float(s[2]) * alpha, alpha * 255)
            }
        }
        let sourceWidth = Double(sw), sourceHeight = Double(sh)
        for y in 0..<height {
            let cy = Double(y) + 0.5
            // Input position of the row's first pixel centre, relative to input pixel centres; each step
            // right adds (a, d).
            var sx = a * 0.5 + b * cy + c - 0.5, sy = d * 0.5 + e * cy + f - 0.5
            var o = dst + y * width * channels
            for _ in 0..<width {
                var mixed: SIMD4<Float>
                if sx >= -1, sy >= -1, sx < sourceWidth, sy < sourceHeight {
                    // Floor by truncating a value made positive (cheaper than a call to floor).
                    let x0 = Int(sx + 1) - 1, y0 = Int(sy + 1) - 1
                    let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                    let top = texel(x0, y0) * (1 - fx) + texel(x0 + 1, y0) * fx
                    let bottom = texel(x0, y0 + 1) * (1 - fx) + texel(x0 + 1, y0 + 1) * fx
                    mixed = top * (1 - fy) + bottom * fy
                } else {
                    mixed = backMixed
                }
                if premultiplied {
                    let alpha = mixed[3]  // 0...65025
                    if alpha > 0 {
                        let colour = mixed * (255 / alpha)
                        mixed = SIMD4(colour[0], colour[1], colour[2], alpha / 255)
                    } else {
                        mixed = .zero
                    }
                }
                // Weights sum to 1, so values stay within 0...255 (plus rounding dust); +0.5 rounds.
                let rounded = (mixed + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                for ch in 0..<channels { o[ch] = UInt8(rounded[ch]) }
                sx += a; sy += d; o += channels
            }
        }
    }
}

extension PixelLayout {
    /// The smallest layout holding this one and `color` (as the transformers decide).
    func holding(_ color: RGBAColor) -> PixelLayout {
        if self == .rgba8 || !color.isOpaque { return .rgba8 }
        if self == .rgb8 || color.red != color.green || color.green != color.blue { return .rgb8 }
        return .gray8
    }
}

extension RGBAColor {
    func bytes(for layout: PixelLayout) -> [UInt8] {
        switch layout {
        case .rgba8: [red, green, blue, alpha]
        case .rgb8: [red, green, blue]
        case .gray8: [luma]
        }
    }

    private var luma: UInt8 {
        let weighted: Int = 299 * Int(red) + 587 * Int(green) + 114 * Int(blue)
        return UInt8((weighted + 500) / 1000)
    }
}
