import WebImageCore

/// Tints the image with a colour through a ``BlendMode``: SDWebImage's tint and a colour overlay.
///
/// The colour is composited source-atop (it lands only where the image is, and the image's alpha is kept)
/// with the W3C Compositing and Blending Level 1 formulas, on straight (not premultiplied) colour:
/// `Co = as * ((1 - ab) * Cs + ab * B(Cb, Cs)) + (1 - as) * Cb`, where `Cb`/`ab` are the pixel's colour and
/// alpha, `Cs` the colour and `as` its alpha, the tint's strength (255 applies the blend fully, 0 leaves
/// the image as it is). A gray image stays gray under a gray colour and becomes RGB under any other.
///
/// ```swift
/// let sepiaish = TintTransformer(color: RGBAColor(red: 112, green: 66, blue: 20, alpha: 160), mode: .overlay)
/// ```
public struct TintTransformer: FrameTransformer {
    /// The colour; its alpha is the strength of the tint.
    public let color: RGBAColor
    /// How the colour mixes with each pixel.
    public let mode: BlendMode

    /// A tint with `color` (its alpha the strength) mixed by `mode` (``BlendMode/normal`` by default).
    public init(color: RGBAColor, mode: BlendMode = .normal) {
        self.color = color
        self.mode = mode
    }

    /// `tint(color:RRGGBBAA,mode:M)` with the colour in lowercase hex.
    public var transformerKey: String {
        let hex = [color.red, color.green, color.blue, color.alpha].map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
        return "tint(color:\(hex),mode:\(mode.rawValue))"
    }

    /// The tinted frame, same size; same layout except gray under a colour that is not gray (RGB).
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let colourIsGray = color.red == color.green && color.green == color.blue
        var source = pixels.layout == .gray8 && !colourIsGray ? pixels.converted(to: .rgb8) : pixels.packed()
        if color.alpha == 0 { return source }
        let sourceColour = source.layout == .gray8 ? [color.red] : [color.red, color.green, color.blue]
        let strength = Float(color.alpha) / 255
        // Per colour channel and backdrop level: B(Cb, Cs), and the result over an opaque pixel as a byte.
        let blended: [[Float]] = sourceColour.map { channel in
            (0..<256).map { mode.blend(backdrop: Float($0) / 255, source: Float(channel) / 255) }
        }
        let opaque: [[UInt8]] = blended.map { table in
            (0..<256).map { FloatRow.byte(255 * (strength * table[$0] + (1 - strength) * Float($0) / 255)) }
        }
        let channels = source.layout.bytesPerPixel
        let hasAlpha = source.layout.hasAlpha
        source.bytes.withUnsafeMutableBufferPointer { bytes in
            for pixel in stride(from: 0, to: bytes.count, by: channels) {
                let alpha = hasAlpha ? bytes[pixel + 3] : 255
                for c in 0..<sourceColour.count {
                    let level = Int(bytes[pixel + c])
                    if alpha == 255 {
                        bytes[pixel + c] = opaque[c][level]
                    } else {
                        let backdropAlpha = Float(alpha) / 255
                        let colourValue = Float(sourceColour[c]) / 255
                        let atop = (1 - backdropAlpha) * colourValue + backdropAlpha * blended[c][level]
                        bytes[pixel + c] = FloatRow.byte(255 * (strength * atop + (1 - strength) * Float(level) / 255))
                    }
                }
            }
        }
        return source
    }
}
