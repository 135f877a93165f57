import Foundation

extension DecodeOptions {
    /// `pixels`, decoded in their stored orientation, as the image these options ask for: turned upright by
    /// the EXIF orientation in `metadata` (unless ``applyOrientation`` is off; the orientation is reported
    /// either way), then resized to the output size, then converted to sRGB when ``colorConversion`` asks
    /// and `metadata` has an ICC profile. Coders finish every decode with it, so a thumbnail fits the
    /// requested size once upright, whatever the format.
    ///
    /// - Parameters:
    ///   - pixels: the decoded pixels, in the orientation they are stored in.
    ///   - format: the format they were decoded from.
    ///   - metadata: the file's metadata; its EXIF orientation turns the pixels upright.
    ///   - isIncomplete: whether the pixels come from part of the file (progressive loading).
    ///   - storedSize: the image's real size in the file when `pixels` were decoded smaller (JPEG's
    ///     DCT scaling): the output size is then computed from it, with
    ///     ``outputSize(storedWidth:storedHeight:orientation:)``, not from the pixels' rounded size, so a
    ///     thumbnail has the same size whichever coder made it.
    public func image(
        from pixels: PixelBuffer, format: ImageFormat, metadata: ImageMetadata,
        isIncomplete: Bool = false, storedSize: PixelSize? = nil
    ) -> Image {
        let orientation = metadata.exif.flatMap(ExifOrientation.orientation(fromTIFF:)) ?? .up
        var pixels = pixels
        if applyOrientation { pixels = pixels.applyingOrientation(orientation) }
        let size =
            storedSize.map { outputSize(storedWidth: $0.width, storedHeight: $0.height, orientation: orientation) }
            ?? outputSize(width: pixels.width, height: pixels.height)
        if size.width != pixels.width || size.height != pixels.height {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        let image = Image(
            pixels: pixels, format: format, orientation: orientation,
            isOrientationApplied: applyOrientation, scale: scale, metadata: metadata, isIncomplete: isIncomplete)
        // Last, so a thumbnail converts only its own pixels.
        return colorConversion?.apply(to: image) ?? image
    }

    /// The size ``image(from:format:metadata:isIncomplete:storedSize:)`` gives an image stored as
    /// `storedWidth` x `storedHeight` with this EXIF `orientation`: ``outputSize(width:height:)`` of the
    /// upright image (of the stored one when ``applyOrientation`` is off).
    public func outputSize(storedWidth: Int, storedHeight: Int, orientation: ImageOrientation) -> PixelSize {
        applyOrientation && orientation.swapsDimensions
            ? outputSize(width: storedHeight, height: storedWidth)
            : outputSize(width: storedWidth, height: storedHeight)
    }

    /// `image` fitted to the output size when its coder returned it larger than asked (a custom coder
    /// that ignores ``thumbnailPixelSize``): the manager applies it to every decode, so a thumbnail's cache
    /// key never holds a full-size image. Stills only; an animation is returned as it is.
    public func enforcingOutputSize(_ image: Image) -> Image {
        guard thumbnailPixelSize != nil, !image.isAnimated else { return image }
        let size = outputSize(width: image.width, height: image.height)
        guard size.width < image.width || size.height < image.height else { return image }
        var fitted = image
        fitted.pixels = ImageResampler.resample(image.pixels, width: size.width, height: size.height)
        return fitted
    }
}
