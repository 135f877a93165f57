import WebImageCore

extension PixelBuffer {
    /// `overlay` (any layout) drawn over this image with its top-left corner at (`x`, `y`), its alpha scaled
    /// by `opacity` (0...1): Porter-Duff *source over* with premultiplied mixing. Parts outside are dropped.
    /// The result's layout holds both images (a colour overlay on gray makes RGB; transparency beneath
    /// stays RGBA; an opaque base stays opaque).
    func compositing(_ overlay: PixelBuffer, x: Int, y: Int, opacity: Double) -> PixelBuffer {
        let target: PixelLayout =
            layout == .rgba8 ? .rgba8 : (layout == .gray8 && overlay.layout == .gray8 ? .gray8 : .rgb8)
        var base = converted(to: target).packed()
        let top = overlay.rgba8()
        let firstColumn = max(0, -x), lastColumn = min(top.width, base.width - x)
        let firstRow = max(0, -y), lastRow = min(top.height, base.height - y)
        guard firstColumn < lastColumn, firstRow < lastRow, opacity > 0 else { return base }
        // Opacity in 1/65025ths so that alpha * opacity stays an exact integer product of two 0...255 values.
        let opacityScale = Int((opacity * 255).rounded())
        let channels = target.bytesPerPixel, baseWidth = base.width
        top.bytes.withUnsafeBufferPointer { src in
            base.bytes.withUnsafeMutableBufferPointer { dst in
                for row in firstRow..<lastRow {
                    for column in firstColumn..<lastColumn {
                        let s = (row * top.width + column) * 4
                        let d = ((y + row) * baseWidth + x + column) * channels
                        // Source alpha in 0...65025.
                        let alpha = Int(src[s + 3]) * opacityScale
                        if alpha == 0 { continue }
                        let rest = 65025 - alpha
                        switch target {
                        case .rgba8:
                            let baseAlpha = Int(dst[d + 3]) * 255  // 0...65025
                            let outAlpha = alpha + baseAlpha * rest / 65025
                            for c in 0..<3 {
                                let premultiplied = Int(src[s + c]) * alpha + Int(dst[d + c]) * baseAlpha * rest / 65025
                                dst[d + c] = UInt8((premultiplied + outAlpha / 2) / outAlpha)
                            }
                            dst[d + 3] = UInt8((outAlpha + 127) / 255)
                        case .rgb8:
                            for c in 0..<3 {
                                dst[d + c] = UInt8((Int(src[s + c]) * alpha + Int(dst[d + c]) * rest + 32512) / 65025)
                            }
                        case .gray8:
                            dst[d] = UInt8((Int(src[s]) * alpha + Int(dst[d]) * rest + 32512) / 65025)
                        }
                    }
                }
            }
        }
        return base
    }
}
