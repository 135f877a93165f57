import WebImageCore

/// imgproxy's crop: each size ≥ 1 is pixels, below 1 a fraction of the frame, 0 the whole frame; a size
/// larger than the frame is cut to it. The pixel size is worked out per frame (all frames of an animation
/// share one size), then ``CropTransformer`` crops.
struct ProcessingCrop: FrameTransformer {
    let width: Double
    let height: Double
    let gravity: Gravity

    var transformerKey: String {
        "crop(\(ProcessingNumber.text(width))x\(ProcessingNumber.text(height)),\(gravity))"
    }

    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let cropWidth = Self.pixels(width, of: pixels.width)
        let cropHeight = Self.pixels(height, of: pixels.height)
        if cropWidth == pixels.width && cropHeight == pixels.height { return pixels }
        return try CropTransformer(width: cropWidth, height: cropHeight, gravity: gravity).transformFrame(pixels)
    }

    /// The size in pixels, 1...`length`.
    static func pixels(_ size: Double, of length: Int) -> Int {
        let exact = size == 0 ? Double(length) : size < 1 ? size * Double(length) : size
        return min(max(Int(exact.rounded()), 1), length)
    }
}
