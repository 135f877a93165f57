import WebImageCore

/// A colour with straight (not premultiplied) alpha, one byte per channel: backgrounds, borders, tints.
///
/// ```swift
/// let background = try RGBAColor(hex: "ffffff80")   // half-transparent white
/// ```
public struct RGBAColor: Sendable, Hashable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) ... 255 (opaque).
    public var alpha: UInt8

    /// A colour from its channels; opaque unless `alpha` says otherwise.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// A colour from hexadecimal text: `"fff"` / `"ffff"` (one digit per channel, repeated, as CSS) or
    /// `"ffffff"` / `"ffffff80"` (two digits per channel); the last form carries alpha. A leading `#` is
    /// allowed; case does not matter. Anything else throws `ImageError/invalidParameter(name:reason:)`.
    public init(hex: String) throws(ImageError) {
        let digits = hex.hasPrefix("#") ? Substring(hex.dropFirst()) : Substring(hex)
        var values: [UInt8] = []
        for character in digits {
            guard let value = character.hexDigitValue else {
                throw .invalidParameter(name: "color", reason: "\"\(hex)\" is not hexadecimal")
            }
            values.append(UInt8(value))
        }
        let channels: [UInt8]
        switch values.count {
        case 3, 4: channels = values.map { $0 * 17 }  // "f" means "ff": 15 * 17 = 255
        case 6, 8: channels = stride(from: 0, to: values.count, by: 2).map { values[$0] * 16 + values[$0 + 1] }
        default:
            throw .invalidParameter(name: "color", reason: "\"\(hex)\" must have 3, 4, 6 or 8 hexadecimal digits")
        }
        self.init(
            red: channels[0], green: channels[1], blue: channels[2], alpha: channels.count == 4 ? channels[3] : 255)
    }

    /// Opaque white.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// Fully transparent black (what premultiplied "nothing" is).
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Whether the colour is fully opaque.
    public var isOpaque: Bool { alpha == 255 }

    /// Lower-case hexadecimal text that ``init(hex:)`` reads back: six digits when opaque, eight otherwise.
    public var hexString: String {
        let channels = isOpaque ? [red, green, blue] : [red, green, blue, alpha]
        return channels.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}

extension RGBAColor: CustomStringConvertible {
    /// ``hexString``, the form transformer keys use.
    public var description: String { hexString }
}
