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
        let (red, green, blue) = (UInt32(background.red), UInt32(background.green), UInt32(background.blue))
        let out = [UInt8](unsafeUninitializedCapacity: pixels.width * pixels.height * 3) { to, count in
            pixels.bytes.withUnsafeBufferPointer { from in
                var t = 0
                for y in 0..<pixels.height {
                    var s = y * pixels.bytesPerRow
                    for _ in 0..<pixels.width {
                        let alpha = UInt32(from[s + 3]), rest = 255 - alpha
                        to[t] = Self.dividedBy255(UInt32(from[s]) * alpha + red * rest)
                        to[t + 1] = Self.dividedBy255(UInt32(from[s + 1]) * alpha + green * rest)
                        to[t + 2] = Self.dividedBy255(UInt32(from[s + 2]) * alpha + blue * rest)
                        s += 4
                        t += 3
                    }
                }
            }
            count = pixels.width * pixels.height * 3
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, layout: .rgb8, bytes: out)
    }

    /// `(value + 127) / 255` for the sums of two 8-bit products (at most 255 * 255), without a division:
    /// with `t = value + 128`, `(t + t / 256) / 256` is the same integer for every value up to 65535.
    @inline(__always)
    static func dividedBy255(_ value: UInt32) -> UInt8 {
        let t = value &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }
}
