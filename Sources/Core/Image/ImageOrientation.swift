/// EXIF orientation (tag 0x0112): how the stored pixels must be turned to show the picture upright.
///
/// The raw values are EXIF's, 1 to 8. Coders report the orientation they found and, unless the
/// decode options say otherwise, apply it to the pixels (see ``DecodeOptions/applyOrientation``).
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180 degrees.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left to bottom-right diagonal (transpose).
    case leftMirrored = 5
    /// 6: must be rotated 90 degrees clockwise to show upright.
    case right = 6
    /// 7: mirrored along the top-right to bottom-left diagonal (transverse).
    case rightMirrored = 7
    /// 8: must be rotated 90 degrees counter-clockwise to show upright.
    case left = 8

    /// Whether showing the image upright swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}

extension PixelBuffer {
    /// The pixels turned so that an image stored with `orientation` shows upright.
    public func applyingOrientation(_ orientation: ImageOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let bpp = layout.bytesPerPixel
        let outWidth = orientation.swapsDimensions ? height : width
        let outHeight = orientation.swapsDimensions ? width : height
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * bpp)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    for x in 0..<width {
                        // Where the stored pixel (x, y) lands in the upright picture.
                        let (ox, oy): (Int, Int)
                        switch orientation {
                        case .up: (ox, oy) = (x, y)
                        case .upMirrored: (ox, oy) = (width - 1 - x, y)
                        case .down: (ox, oy) = (width - 1 - x, height - 1 - y)
                        case .downMirrored: (ox, oy) = (x, height - 1 - y)
                        case .leftMirrored: (ox, oy) = (y, x)
                        case .right: (ox, oy) = (height - 1 - y, x)
                        case .rightMirrored: (ox, oy) = (height - 1 - y, width - 1 - x)
                        case .left: (ox, oy) = (y, width - 1 - x)
                        }
                        let s = y * bytesPerRow + x * bpp
                        let d = (oy * outWidth + ox) * bpp
                        for c in 0..<bpp { dst[d + c] = src[s + c] }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, layout: layout, bytes: out)
    }
}
