import WebImageCore

/// Antialiased coverage of a rounded rectangle, from its signed distance.
///
/// A pixel's coverage is `0.5 - distance` from its centre to the shape's outline, clamped to 0...1: a
/// one-pixel-wide linear ramp across the edge, within a few percent of the exact area coverage for radii
/// above a pixel (what Pillow's 8x supersampled drawing gives; see Tests/TransformersTests).
struct RoundedRectangleMask {
    /// The rectangle, in pixel coordinates (edges, not centres).
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    /// Corner radius, at most half the shorter side.
    let radius: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double, radius: Double) {
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
        self.radius = max(0, min(radius, (maxX - minX) / 2, (maxY - minY) / 2))
    }

    /// Signed distance from (`x`, `y`) to the outline: negative inside.
    func distance(x: Double, y: Double) -> Double {
        let halfWidth = (maxX - minX) / 2, halfHeight = (maxY - minY) / 2
        let qx = abs(x - (minX + halfWidth)) - (halfWidth - radius)
        let qy = abs(y - (minY + halfHeight)) - (halfHeight - radius)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        return outside + min(max(qx, qy), 0) - radius
    }

    /// Coverage (0...1) of the pixel whose top-left corner is (`x`, `y`).
    func coverage(x: Int, y: Int) -> Double {
        guard maxX > minX, maxY > minY else { return 0 }
        return min(1, max(0, 0.5 - distance(x: Double(x) + 0.5, y: Double(y) + 0.5)))
    }
}

extension PixelBuffer {
    /// The image cut to a rounded rectangle filling it (corner `radius`), with an optional border of
    /// `borderWidth` in `borderColor` drawn inside the outline; RGBA, premultiplied mixing.
    func roundedCorners(radius: Double, borderWidth: Double, borderColor: RGBAColor) -> PixelBuffer {
        let outer = RoundedRectangleMask(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height), radius: radius)
        let inner = RoundedRectangleMask(
            minX: borderWidth, minY: borderWidth, maxX: Double(width) - borderWidth,
            maxY: Double(height) - borderWidth, radius: outer.radius - borderWidth)
        let source = rgba8()
        var out = source.bytes
        let borderAlpha = Double(borderColor.alpha) / 255
        let border = [borderColor.red, borderColor.green, borderColor.blue].map { Double($0) * borderAlpha }
        // Pixels farther than this from every edge are inside both shapes whole and keep their bytes.
        // Capped at the image's size: a border wider than the image (any finite width is accepted) would
        // not fit in an Int.
        let solid = Int(min((max(outer.radius, borderWidth) + 1).rounded(.up), Double(max(width, height))))
        out.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let nearRow = y < solid || y >= height - solid
                for x in 0..<width where nearRow || x < solid || x >= width - solid {
                    let outside = outer.coverage(x: x, y: y)
                    let inside = borderWidth > 0 ? inner.coverage(x: x, y: y) : outside
                    let ring = max(0, outside - inside)
                    let o = (y * width + x) * 4
                    let alpha = Double(pixels[o + 3]) / 255
                    let newAlpha = alpha * inside + borderAlpha * ring
                    if newAlpha <= 0 {
                        for c in 0..<4 { pixels[o + c] = 0 }
                        continue
                    }
                    for c in 0..<3 {
                        let premultiplied = Double(pixels[o + c]) * alpha * inside + border[c] * ring
                        pixels[o + c] = UInt8(min(255, (premultiplied / newAlpha).rounded()))
                    }
                    pixels[o + 3] = UInt8(min(255, (newAlpha * 255).rounded()))
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgba8, bytes: out)
    }
}
