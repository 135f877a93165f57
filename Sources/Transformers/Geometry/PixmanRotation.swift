internal import CPixman
import WebImageCore

/// A ``Rotation`` carried out by pixman's bilinear affine transform.
///
/// pixman works on premultiplied 32-bit pixels, so the source is converted in (gray and RGB to x8r8g8b8,
/// straight RGBA to premultiplied a8r8g8b8, rounding to nearest) and the result converted back to the
/// layout holding the image and the background. pixman samples like ``Rotation`` describes: destination
/// pixel centres mapped through the matrix, bilinear between source pixel centres, nothing outside the
/// source (`PIXMAN_REPEAT_NONE`), with 7-bit weights and a 16.16 fixed-point matrix.
struct PixmanRotation {
    let rotation: Rotation

    init(_ rotation: Rotation) { self.rotation = rotation }

    /// The rotated pixels; throws `ImageError/badImageData(reason:)` only if pixman cannot wrap the
    /// buffers (it allocates nothing else).
    func apply(to pixels: PixelBuffer, background: RGBAColor) throws(ImageError) -> PixelBuffer {
        let layout = pixels.layout.holding(background)
        let (width, height) = (rotation.width, rotation.height)
        var source = Self.premultiplied(pixels)
        let backgroundPixel = Self.premultiplied(background)
        var dest: [UInt32]
        if pixels.layout.hasAlpha {
            // The image's own translucency must survive, so it is drawn with SRC onto nothing and the
            // background is mixed in afterwards by geometric coverage (see `finish`).
            dest = [UInt32](repeating: 0, count: width * height)
            try transform(&source, pixels.width, pixels.height, format: PIXMAN_a8r8g8b8, into: &dest, op: PIXMAN_OP_SRC)
            return finish(
                dest, layout: layout, background: background, sourceWidth: pixels.width, sourceHeight: pixels.height)
        }
        // Opaque: the rotated image OVER the background is the lerp by coverage the edges need.
        dest = [UInt32](repeating: backgroundPixel, count: width * height)
        try transform(&source, pixels.width, pixels.height, format: PIXMAN_x8r8g8b8, into: &dest, op: PIXMAN_OP_OVER)
        return Self.unpremultiplied(dest, width: width, height: height, layout: layout)
    }

    /// Runs pixman: `source` through the rotation onto `dest` with `op`.
    private func transform(
        _ source: inout [UInt32], _ sourceWidth: Int, _ sourceHeight: Int,
        format: pixman_format_code_t, into dest: inout [UInt32], op: pixman_op_t
    ) throws(ImageError) {
        let r = rotation
        func fixed(_ value: Double) -> pixman_fixed_t { pixman_fixed_t((value * 65536).rounded()) }  // 16.16
        let wrapped = source.withUnsafeMutableBufferPointer { src in
            dest.withUnsafeMutableBufferPointer { dst -> Bool in
                // Ownership: the pixman images borrow these buffers only until they are unreferenced below,
                // inside the closures that keep the buffers alive.
                let sourceImage = pixman_image_create_bits(
                    format, Int32(sourceWidth), Int32(sourceHeight),
                    src.baseAddress, Int32(sourceWidth * 4))
                let destImage = pixman_image_create_bits(
                    PIXMAN_a8r8g8b8, Int32(r.width), Int32(r.height),
                    dst.baseAddress, Int32(r.width * 4))
                defer {
                    if let sourceImage { pixman_image_unref(sourceImage) }
                    if let destImage { pixman_image_unref(destImage) }
                }
                guard sourceImage != nil, destImage != nil else { return false }
                var matrix = pixman_transform()
                matrix.matrix = (
                    (fixed(r.a), fixed(r.b), fixed(r.c)), (fixed(r.d), fixed(r.e), fixed(r.f)), (0, 0, fixed(1))
                )
                pixman_image_set_transform(sourceImage, &matrix)
                pixman_image_set_filter(sourceImage, PIXMAN_FILTER_BILINEAR, nil, 0)
                pixman_image_set_repeat(sourceImage, PIXMAN_REPEAT_NONE)
                pixman_image_composite32(
                    op, sourceImage, nil, destImage, 0, 0, 0, 0, 0, 0, Int32(r.width), Int32(r.height))
                return true
            }
        }
        if !wrapped { throw .badImageData(reason: "pixman could not wrap a \(sourceWidth)x\(sourceHeight) image") }
    }

    /// Straight RGBA out of pixman's SRC result, with `background` mixed in by how much of each pixel the
    /// source covers (a product of the two axes' bilinear coverage, exact for a rectangle).
    private func finish(
        _ dest: [UInt32], layout: PixelLayout, background: RGBAColor,
        sourceWidth: Int, sourceHeight: Int
    ) -> PixelBuffer {
        guard background.alpha > 0 else {
            return Self.unpremultiplied(dest, width: rotation.width, height: rotation.height, layout: layout)
        }
        let r = rotation
        let back = Self.premultiplied(background)
        let backChannels = (0..<4).map { Double((back >> UInt32(8 * $0)) & 0xFF) }  // b, g, r, a
        func coverage(_ s: Double, _ n: Int) -> Double {
            s < 0 ? max(0, 1 + s) : (s > Double(n - 1) ? max(0, Double(n) - s) : 1)
        }
        var mixed = dest
        for y in 0..<r.height {
            for x in 0..<r.width {
                let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                let sx = r.a * cx + r.b * cy + r.c - 0.5, sy = r.d * cx + r.e * cy + r.f - 0.5
                let uncovered = 1 - coverage(sx, sourceWidth) * coverage(sy, sourceHeight)
                if uncovered <= 0 { continue }
                let i = y * r.width + x
                var pixel: UInt32 = 0
                for c in 0..<4 {
                    let value = Double((dest[i] >> UInt32(8 * c)) & 0xFF) + backChannels[c] * uncovered
                    pixel |= UInt32(min(255, value.rounded())) << UInt32(8 * c)
                }
                mixed[i] = pixel
            }
        }
        return Self.unpremultiplied(mixed, width: r.width, height: r.height, layout: layout)
    }

    /// The colour as one premultiplied a8r8g8b8 pixel.
    static func premultiplied(_ color: RGBAColor) -> UInt32 {
        let a = UInt32(color.alpha)
        func m(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | m(color.red) << 16 | m(color.green) << 8 | m(color.blue)
    }

    /// The pixels as premultiplied a8r8g8b8 (gray and RGB opaque, so x8r8g8b8 with alpha 255).
    static func premultiplied(_ pixels: PixelBuffer) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: pixels.width * pixels.height)
        let (width, stride) = (pixels.width, pixels.bytesPerRow)
        pixels.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for y in 0..<pixels.height {
                    let row = y * stride, o = y * width
                    switch pixels.layout {
                    case .gray8:
                        for x in 0..<width { let g = UInt32(s[row + x]); d[o + x] = 0xFF00_0000 | g << 16 | g << 8 | g }
                    case .rgb8:
                        for x in 0..<width {
                            let p = row + x * 3
                            d[o + x] = 0xFF00_0000 | UInt32(s[p]) << 16 | UInt32(s[p + 1]) << 8 | UInt32(s[p + 2])
                        }
                    case .rgba8:
                        for x in 0..<width {
                            let p = row + x * 4, a = UInt32(s[p + 3])
                            // c * a / 255 rounded to nearest.
                            func m(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
                            d[o + x] = a << 24 | m(s[p]) << 16 | m(s[p + 1]) << 8 | m(s[p + 2])
                        }
                    }
                }
            }
        }
        return out
    }

    /// Premultiplied a8r8g8b8 back to `layout` (RGBA divided by alpha, rounded; gray from the red channel,
    /// which equals the others for a gray image on a gray background).
    static func unpremultiplied(_ pixels: [UInt32], width: Int, height: Int, layout: PixelLayout) -> PixelBuffer {
        let bpp = layout.bytesPerPixel
        var out = [UInt8](repeating: 0, count: width * height * bpp)
        pixels.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for i in 0..<s.count {
                    let p = s[i], o = i * bpp
                    let r = UInt8(truncatingIfNeeded: p >> 16), g = UInt8(truncatingIfNeeded: p >> 8),
                        b = UInt8(truncatingIfNeeded: p)
                    switch layout {
                    case .gray8: d[o] = r
                    case .rgb8: d[o] = r; d[o + 1] = g; d[o + 2] = b
                    case .rgba8:
                        let a = p >> 24
                        guard a > 0 else { continue }
                        func u(_ c: UInt8) -> UInt8 { UInt8(min(255, (UInt32(c) * 255 + a / 2) / a)) }
                        d[o] = u(r); d[o + 1] = u(g); d[o + 2] = u(b); d[o + 3] = UInt8(a)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }
}
