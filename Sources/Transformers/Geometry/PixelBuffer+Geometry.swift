import WebImageCore

/// Pixel filling the geometry transformers share (crops are Core's `PixelBuffer.cropped`); every buffer
/// they return is packed.
extension PixelBuffer {
    /// A `width` x `height` buffer of `layout` filled with `color` (converted to the layout: gray by
    /// BT.601 luma, alpha dropped when the layout has none).
    static func filled(width: Int, height: Int, layout: PixelLayout, color: RGBAColor) -> PixelBuffer {
        let pixel = color.bytes(for: layout)
        var out = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        if pixel.contains(where: { $0 != 0 }) {
            out.withUnsafeMutableBufferPointer { target in
                var i = 0
                while i < target.count {
                    for byte in pixel { target[i] = byte; i += 1 }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }

    /// Copies all of `source` (same layout) into this buffer with its top-left corner at (`x`, `y`);
    /// the parts falling outside are dropped.
    mutating func paste(_ source: PixelBuffer, x: Int, y: Int) {
        precondition(source.layout == layout, "paste needs one layout")
        let bpp = layout.bytesPerPixel
        let firstColumn = max(0, -x), lastColumn = min(source.width, width - x)
        let firstRow = max(0, -y), lastRow = min(source.height, height - y)
        guard firstColumn < lastColumn, firstRow < lastRow else { return }
        let count = (lastColumn - firstColumn) * bpp
        let targetStride = bytesPerRow
        source.bytes.withUnsafeBufferPointer { from in
            bytes.withUnsafeMutableBufferPointer { to in
                for row in firstRow..<lastRow {
                    let s = row * source.bytesPerRow + firstColumn * bpp
                    let t = (y + row) * targetStride + (x + firstColumn) * bpp
                    for i in 0..<count { to[t + i] = from[s + i] }
                }
            }
        }
    }
}

extension PixelBuffer {
    /// The pixels as packed RGBA8 (gray and RGB opaque): Core's `converted(to:)` done row by row
    /// without per-pixel checks, for transformers that always output RGBA.
    func rgba8() -> PixelBuffer {
        if layout == .rgba8 { return packed() }
        var out = [UInt8](repeating: 255, count: width * height * 4)
        let bpp = layout.bytesPerPixel
        bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for y in 0..<height {
                    var i = y * bytesPerRow, o = y * width * 4
                    for _ in 0..<width {
                        if bpp == 1 {
                            d[o] = s[i]; d[o + 1] = s[i]; d[o + 2] = s[i]
                        } else {
                            d[o] = s[i]; d[o + 1] = s[i + 1]; d[o + 2] = s[i + 2]
                        }
                        i += bpp; o += 4
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgba8, bytes: out)
    }
}

extension PixelLayout {
    /// The smallest layout that holds both pixels of this layout and `color`: RGBA when the colour is
    /// translucent, RGB when it is not gray, else this layout.
    func holding(_ color: RGBAColor) -> PixelLayout {
        if self == .rgba8 || !color.isOpaque { return .rgba8 }
        if self == .rgb8 || color.red != color.green || color.green != color.blue { return .rgb8 }
        return .gray8
    }
}

extension RGBAColor {
    /// ITU-R BT.601 luma, rounded: the gray ``PixelBuffer/converted(to:)`` gives for this colour.
    var luma: UInt8 {
        let weighted: Int = 299 * Int(red) + 587 * Int(green) + 114 * Int(blue)
        return UInt8((weighted + 500) / 1000)
    }

    /// This colour's bytes in `layout`.
    func bytes(for layout: PixelLayout) -> [UInt8] {
        switch layout {
        case .rgba8: [red, green, blue, alpha]
        case .rgb8: [red, green, blue]
        case .gray8: [luma]
        }
    }
}
