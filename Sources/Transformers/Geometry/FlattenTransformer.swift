import WebImageCore

/// Composites a transparent image onto an opaque background colour, giving RGB (imgproxy's `background`,
/// the step before JPEG output). Gray and RGB images are opaque already and pass unchanged.
///
/// Each channel becomes `colour * alpha + background * (1 - alpha)`, rounded to nearest.
public struct FlattenTransformer: FrameTransformer {
    /// The colour behind the image; its alpha is ignored (a background is opaque).
    public let background: RGBAColor

    /// Flattens onto `background` (white by default); the colour's alpha is ignored.
    public init(background: RGBAColor = .white) {
        self.background = RGBAColor(red: background.red, green: background.green, blue: background.blue)
    }

    /// `flatten(color)`.
    public var transformerKey: String { "flatten(\(background))" }

    /// The opaque pixels.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard pixels.layout == .rgba8 else { return pixels }
        let back = [Int(background.red), Int(background.green), Int(background.blue)]
        var out = [UInt8](repeating: 0, count: pixels.width * pixels.height * 3)
        pixels.bytes.withUnsafeBufferPointer { from in
            out.withUnsafeMutableBufferPointer { to in
                var t = 0
                for y in 0..<pixels.height {
                    var s = y * pixels.bytesPerRow
                    for _ in 0..<pixels.width {
                        let alpha = Int(from[s + 3]), rest = 255 - alpha
                        for c in 0..<3 {
                            // (a*x + b*y) / 255 rounded: adding 127 before an exact division by 255.
                            to[t + c] = UInt8((Int(from[s + c]) * alpha + back[c] * rest + 127) / 255)
                        }
                        s += 4; t += 3
                    }
                }
            }
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, layout: .rgb8, bytes: out)
    }
}
