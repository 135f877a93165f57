/// The pixel helpers every coder and transformer shares: crop a rectangle, shrink to a maximum size.
extension PixelBuffer {
    /// The `width` x `height` rectangle at (`x`, `y`), packed; the rectangle must lie inside the buffer.
    /// The buffer itself (packed) when the rectangle is all of it.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        if x == 0 && y == 0 && width == self.width && height == self.height { return packed() }
        let bpp = layout.bytesPerPixel, rowBytes = width * bpp
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for row in 0..<height {
                    let from = (y + row) * bytesPerRow + x * bpp
                    for i in 0..<rowBytes { target[row * rowBytes + i] = source[from + i] }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }

    /// These pixels shrunk to fit inside `limit`, keeping their shape, as a thumbnail is resampled
    /// (``ImageResampler/thumbnailSize(width:height:limit:preserveAspectRatio:)``); never enlarged, and
    /// unchanged when `limit` is nil. What every encoder does with ``EncodeOptions/maxPixelSize``.
    public func fitting(within limit: PixelSize?) -> PixelBuffer {
        guard let limit else { return self }
        let size = ImageResampler.thumbnailSize(width: width, height: height, limit: limit, preserveAspectRatio: true)
        return ImageResampler.resample(self, width: size.width, height: size.height)
    }
}
