import WebImageCore

/// The largest image a geometry transformer makes: the decoders' default pixel limit
/// (`DecodeOptions/defaultMaxPixelCount`), so a padding or rotation cannot ask for more memory than a
/// decode could.
enum CanvasLimit {
    static let maxPixelCount = DecodeOptions.defaultMaxPixelCount

    /// Throws `ImageError/imageTooLarge(width:height:limit:)` when a `width` x `height` output is over the limit.
    static func check(width: Int, height: Int) throws(ImageError) {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || count > maxPixelCount {
            throw .imageTooLarge(width: width, height: height, limit: maxPixelCount)
        }
    }
}
