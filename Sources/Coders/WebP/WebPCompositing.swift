import WebImageCore

/// Drawing a decoded animation frame (RGBA, straight alpha) onto the RGBA canvas, with WebP's blend
/// and dispose rules.
///
/// Alpha blending uses libwebp's own integer arithmetic for non-premultiplied "source over"
/// (`BlendPixelNonPremult` in libwebp's `anim_decode.c`, which Chromium's WebP decoder copies), not the
/// exact real-number formula: the two round differently by one level on some pixels, and matching
/// libwebp and browsers to the byte is worth more than the last bit of precision.
enum WebPCompositing {
    /// Draws `source` at (`x`, `y`), clipped to the canvas. With `blend`, a pixel is composited over
    /// the canvas (a fully transparent one leaves it as it is, an opaque one replaces it); without,
    /// every pixel replaces the canvas's. Pixels inside `except` (canvas coordinates) are replaced, not
    /// blended, whatever `blend` says: libwebp does so where the previous frame was disposed.
    static func draw(
        _ source: PixelBuffer, onto canvas: inout PixelBuffer, x: Int, y: Int, blend: Bool,
        except copied: (x: Int, y: Int, width: Int, height: Int)? = nil
    ) {
        let width = min(source.width, canvas.width - x), height = min(source.height, canvas.height - y)
        guard x >= 0, y >= 0, width > 0, height > 0 else { return }
        let sourceStride = source.bytesPerRow, canvasStride = canvas.bytesPerRow
        source.bytes.withUnsafeBufferPointer { src in
            canvas.bytes.withUnsafeMutableBufferPointer { dst in
                for row in 0..<height {
                    let sourceRow = row * sourceStride, canvasRow = (y + row) * canvasStride + x * 4
                    if !blend {
                        for i in 0..<width * 4 { dst[canvasRow + i] = src[sourceRow + i] }
                        continue
                    }
                    let copiedColumns = copiedRange(copied, row: y + row, x: x, width: width)
                    for column in 0..<width {
                        let s = sourceRow + column * 4, d = canvasRow + column * 4
                        let sourceAlpha = UInt32(src[s + 3])
                        if sourceAlpha == 255 || copiedColumns.contains(column) {
                            for c in 0..<4 { dst[d + c] = src[s + c] }
                            continue
                        }
                        if sourceAlpha == 0 { continue }
                        // dst_factor_a ≈ dst_a * (255 - src_a) / 255, as libwebp approximates it.
                        let canvasFactor = (UInt32(dst[d + 3]) * (256 - sourceAlpha)) >> 8
                        let outAlpha = sourceAlpha + canvasFactor
                        let scale = (UInt32(1) << 24) / outAlpha
                        for c in 0..<3 {
                            let unscaled = UInt32(src[s + c]) * sourceAlpha + UInt32(dst[d + c]) * canvasFactor
                            dst[d + c] = UInt8(truncatingIfNeeded: (unscaled * scale) >> 24)
                        }
                        dst[d + 3] = UInt8(outAlpha)
                    }
                }
            }
        }
    }

    /// The columns (relative to the drawn frame at `x`, `width` wide) that fall inside `rect` on canvas row `row`.
    private static func copiedRange(
        _ rect: (x: Int, y: Int, width: Int, height: Int)?, row: Int, x: Int,
        width: Int
    ) -> Range<Int> {
        guard let rect, row >= rect.y, row < rect.y + rect.height else { return 0..<0 }
        let lower = max(0, rect.x - x), upper = min(width, rect.x + rect.width - x)
        return lower < upper ? lower..<upper : 0..<0
    }

    /// Makes a rectangle transparent (dispose to background: WebP decoders use transparent black, not
    /// the ANIM chunk's background colour, which the container spec lets them ignore).
    static func clear(_ canvas: inout PixelBuffer, x: Int, y: Int, width: Int, height: Int) {
        for row in max(0, y)..<min(canvas.height, y + height) {
            let start = row * canvas.bytesPerRow + max(0, x) * 4
            let end = row * canvas.bytesPerRow + min(canvas.width, x + width) * 4
            if start < end { canvas.bytes.replaceSubrange(start..<end, with: repeatElement(0, count: end - start)) }
        }
    }
}
