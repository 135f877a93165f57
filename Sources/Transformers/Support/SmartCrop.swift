import WebImageCore

/// Finds the window of an image that draws the eye (``Gravity/smart``).
enum SmartCrop {
    /// Top-left corner of the best `regionWidth` x `regionHeight` window inside `pixels`.
    static func regionOrigin(regionWidth: Int, regionHeight: Int, in pixels: PixelBuffer) -> (x: Int, y: Int) {
        // Placeholder until the attention score lands: the centre.
        ((pixels.width - regionWidth) / 2, (pixels.height - regionHeight) / 2)
    }
}
