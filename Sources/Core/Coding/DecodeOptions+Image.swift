import Foundation

extension DecodeOptions {
    /// `pixels`, decoded in their stored orientation, as the image these options ask for: turned upright by
    /// the EXIF orientation in `metadata` (unless ``applyOrientation`` is off; the orientation is reported
    /// either way), then resized to the output size. Coders finish every decode with it, so a thumbnail
    /// fits the requested size once upright, whatever the format.
    public func image(from pixels: PixelBuffer, format: ImageFormat, metadata: ImageMetadata,
                      isIncomplete: Bool = false) -> Image {
        let orientation = metadata.exif.flatMap(ExifOrientation.orientation(fromTIFF:)) ?? .up
        var pixels = pixels
        if applyOrientation { pixels = pixels.applyingOrientation(orientation) }
        return Image(pixels: resizedToOutput(pixels), format: format, orientation: orientation,
                     isOrientationApplied: applyOrientation, scale: scale, metadata: metadata, isIncomplete: isIncomplete)
    }
}
