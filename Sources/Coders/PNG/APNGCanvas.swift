import WebImageCore

/// Drawing APNG frames onto an RGBA8 canvas (straight alpha), with APNG's blend and dispose operations.
enum APNGCanvas {
    /// Draws the RGBA8 `frame` with its top-left corner at (`x`, `y`). `.source` replaces the canvas's
    /// pixels (alpha included); `.over` alpha-composites the frame over them (Porter-Duff "over" on
    /// straight alpha, rounded to nearest). The caller has checked that the frame fits the canvas.
    static func draw(
        _ frame: PixelBuffer, onto canvas: inout PixelBuffer, x: Int, y: Int,
        blend: APNGFrameControl.Blend
    ) {
        precondition(frame.layout == .rgba8 && canvas.layout == .rgba8, "APNG composes RGBA8 pixels")
        precondition(
            x >= 0 && y >= 0 && x + frame.width <= canvas.width && y + frame.height <= canvas.height,
            "the frame must lie inside the canvas")
        let rowBytes = frame.width * 4
        let sourceStride = frame.bytesPerRow, canvasStride = canvas.bytesPerRow
        frame.bytes.withUnsafeBufferPointer { source in
            canvas.bytes.withUnsafeMutableBufferPointer { target in
                for row in 0..<frame.height {
                    let s = row * sourceStride, d = (y + row) * canvasStride + x * 4
                    guard blend == .over else {
                        // One row copied whole; both ranges were checked above (the frame lies inside the
                        // canvas, which is not empty).
                        precondition(s + rowBytes <= source.count && d + rowBytes <= target.count)
                        (target.baseAddress! + d).update(from: source.baseAddress! + s, count: rowBytes)
                        continue
                    }
                    for pixel in stride(from: 0, to: rowBytes, by: 4) {
                        blendOver(source, at: s + pixel, onto: target, at: d + pixel)
                    }
                }
            }
        }
    }

    /// One pixel of "over": out.a = sa + da (1 - sa); out.c = (sc sa + dc da (1 - sa)) / out.a,
    /// computed in integers scaled by 255 * 255 so nothing is lost before the final rounding.
    @inline(__always)
    private static func blendOver(
        _ source: UnsafeBufferPointer<UInt8>, at s: Int,
        onto target: UnsafeMutableBufferPointer<UInt8>, at d: Int
    ) {
        let sa = Int(source[s + 3])
        if sa == 255 {
            for c in 0..<4 { target[d + c] = source[s + c] }
            return
        }
        if sa == 0 { return }
        let da = Int(target[d + 3])
        let weight = da * (255 - sa)  // the canvas's share, scaled by 255
        let alpha = sa * 255 + weight  // out.a scaled by 255
        for c in 0..<3 {
            let value = Int(source[s + c]) * sa * 255 + Int(target[d + c]) * weight
            target[d + c] = UInt8((value + alpha / 2) / alpha)
        }
        target[d + 3] = UInt8((alpha + 127) / 255)
    }

    /// Makes a rectangle of the canvas transparent black (APNG_DISPOSE_OP_BACKGROUND).
    static func clear(_ canvas: inout PixelBuffer, x: Int, y: Int, width: Int, height: Int) {
        let stride = canvas.bytesPerRow
        canvas.bytes.withUnsafeMutableBufferPointer { target in
            for row in y..<(y + height) {
                let start = row * stride + x * 4
                for i in start..<(start + width * 4) { target[i] = 0 }
            }
        }
    }
}
