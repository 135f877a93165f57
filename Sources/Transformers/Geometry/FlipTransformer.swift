import WebImageCore

/// Mirrors the image: `horizontal` mirrors left and right (imgproxy's and ImageMagick's *flop*),
/// `vertical` mirrors top and bottom (*flip*); both together turn it by 180 degrees. Exact: pixels are
/// only moved.
public struct FlipTransformer: FrameTransformer {
    /// Whether left and right are swapped.
    public let horizontal: Bool
    /// Whether top and bottom are swapped.
    public let vertical: Bool

    /// Mirrors left-right when `horizontal`, top-bottom when `vertical`.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// `flip(h)`, `flip(v)`, `flip(hv)` or `flip()`.
    public var transformerKey: String { "flip(\(horizontal ? "h" : "")\(vertical ? "v" : ""))" }

    /// The mirrored pixels.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard horizontal || vertical else { return pixels }
        return pixels.remapped(width: pixels.width, height: pixels.height) { x, y in
            (horizontal ? pixels.width - 1 - x : x, vertical ? pixels.height - 1 - y : y)
        }
    }
}

extension PixelBuffer {
    /// A `width` x `height` buffer whose pixel (x, y) is this buffer's pixel `source(x, y)`: flips and
    /// quarter turns, exact.
    func remapped(width: Int, height: Int, source: (Int, Int) -> (x: Int, y: Int)) -> PixelBuffer {
        let bpp = layout.bytesPerPixel
        var out = [UInt8](repeating: 0, count: width * height * bpp)
        bytes.withUnsafeBufferPointer { from in
            out.withUnsafeMutableBufferPointer { to in
                var t = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let p = source(x, y)
                        let s = p.y * bytesPerRow + p.x * bpp
                        for c in 0..<bpp { to[t + c] = from[s + c] }
                        t += bpp
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }
}
