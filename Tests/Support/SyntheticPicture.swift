import WebImageCore

/// Pictures made in code for coder tests: smooth enough that lossy codecs keep them close, with a
/// different colour in each quadrant so a turn or mirror shows.
public enum SyntheticPicture {
    /// A `width` x `height` picture: red/green ramps across, blue by quadrant, and (for `.rgba8`) alpha
    /// ramping from 0 at the left edge to 255 at the right, so every alpha value occurs.
    /// `phase` shifts the ramps, to make distinct animation frames.
    public static func make(width: Int, height: Int, layout: PixelLayout = .rgb8, phase: Int = 0) -> PixelBuffer {
        let bpp = layout.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: width * height * bpp)
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt8((x * 255 / max(1, width - 1) + phase) & 0xFF)
                let g = UInt8((y * 255 / max(1, height - 1) + phase * 2) & 0xFF)
                let quadrant = (x < width / 2 ? 0 : 1) + (y < height / 2 ? 0 : 2)
                let b = UInt8(quadrant * 80)
                let o = (y * width + x) * bpp
                switch layout {
                case .gray8: bytes[o] = r
                case .rgb8: bytes[o] = r; bytes[o + 1] = g; bytes[o + 2] = b
                case .rgba8:
                    bytes[o] = r; bytes[o + 1] = g; bytes[o + 2] = b
                    bytes[o + 3] = UInt8(x * 255 / max(1, width - 1))
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// The largest difference of any channel between two same-sized buffers, both seen as RGBA.
    public static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(
            a.width == b.width && a.height == b.height, "sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)"
        )
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.rgba(x: x, y: y), q = b.rgba(x: x, y: y)
                worst = max(
                    worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)),
                    abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
            }
        }
        return worst
    }

    /// Mean absolute difference per channel, both seen as RGBA.
    public static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.rgba(x: x, y: y), q = b.rgba(x: x, y: y)
                total +=
                    abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
                    + abs(Int(p.a) - Int(q.a))
            }
        }
        return Double(total) / Double(max(1, a.width * a.height * 4))
    }
}
