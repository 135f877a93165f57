import WebImageCore

/// A watermark whose offsets are fractions of the image (imgproxy: |offset| < 1), turned into pixels per
/// frame before ``WatermarkTransformer`` draws it.
struct ProcessingRelativeWatermark: FrameTransformer {
    let watermark: Image
    let option: WatermarkOption
    /// Multiplies absolute offsets.
    let devicePixelRatio: Double
    /// The key of the same watermark without offsets: it identifies the image and the other parameters.
    let baseKey: String

    /// Checks the parameters by building the watermark once without offsets.
    init(watermark: Image, option: WatermarkOption, devicePixelRatio: Double) throws(ImageError) {
        self.watermark = watermark
        self.option = option
        self.devicePixelRatio = devicePixelRatio
        baseKey = try WatermarkTransformer(
            watermark: watermark, gravity: option.position, offsetX: 0, offsetY: 0,
            opacity: option.opacity, scale: option.scale,
            replicates: option.replicate
        ).transformerKey
    }

    var transformerKey: String {
        "\(baseKey)+offset(\(ProcessingNumber.text(option.offsetX)),\(ProcessingNumber.text(option.offsetY)),"
            + "dpr\(ProcessingNumber.text(devicePixelRatio)))"
    }

    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        try Self.transformer(
            watermark, option, devicePixelRatio: devicePixelRatio,
            imageWidth: pixels.width, imageHeight: pixels.height
        ).transformFrame(pixels)
    }

    /// Offsets in pixels: |offset| ≥ 1 is points times the dpr, below 1 a fraction of the image's side.
    static func offset(_ value: Double, devicePixelRatio: Double, length: Int) -> Int {
        abs(value) >= 1 ? Int((value * devicePixelRatio).rounded()) : Int((value * Double(length)).rounded())
    }

    /// The watermark for an image of this size.
    static func transformer(
        _ watermark: Image, _ option: WatermarkOption, devicePixelRatio: Double,
        imageWidth: Int, imageHeight: Int
    ) throws(ImageError) -> WatermarkTransformer {
        try WatermarkTransformer(
            watermark: watermark, gravity: option.position,
            offsetX: offset(option.offsetX, devicePixelRatio: devicePixelRatio, length: imageWidth),
            offsetY: offset(option.offsetY, devicePixelRatio: devicePixelRatio, length: imageHeight),
            opacity: option.opacity, scale: option.scale, replicates: option.replicate)
    }
}
