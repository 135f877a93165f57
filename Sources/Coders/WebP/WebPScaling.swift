internal import CWebP
import WebImageCore

/// Where WebP thumbnails are scaled: by libwebp while it decodes (the full-size image is never held) to
/// about twice the output size where its scaler is right, then by Core's Lanczos3 to the exact size;
/// otherwise by Core's premultiplied resampler after a full-size decode (memory the pixel limit already
/// admits).
enum WebPScaling {
    /// The thumbnail size in stored orientation: the output size of the upright image (as every coder
    /// computes it), turned back when the EXIF orientation swaps width and height, so turning the
    /// decoded pixels upright gives exactly the output size.
    static func outputSize(of source: PixelSize, metadata: ImageMetadata, options: DecodeOptions) -> PixelSize {
        let orientation = metadata.exif.flatMap(ExifOrientation.orientation(fromTIFF:)) ?? .up
        guard options.applyOrientation && orientation.swapsDimensions else {
            return options.outputSize(width: source.width, height: source.height)
        }
        let upright = options.outputSize(width: source.height, height: source.width)
        return PixelSize(width: upright.height, height: upright.width)
    }

    /// Whether libwebp's scaler gives the right pixels scaling a bitstream with `features` from `source`
    /// to `size`. Lossless data it scales premultiplied, as we do. Lossy data it scales plane by plane
    /// (Y, U, V and alpha apart), which goes wrong in two cases:
    /// - with alpha, the colour of fully transparent pixels bleeds into the edges of visible ones;
    /// - an image 1 or 2 pixels wide or high gets wrong colours.
    static func libwebpScalesCorrectly(
        _ features: WebPBitstreamFeatures, from source: PixelSize,
        to size: PixelSize
    ) -> Bool {
        guard size != source else { return true }
        guard features.format == lossyFormat else { return true }
        return features.has_alpha == 0 && min(source.width, source.height) > narrowestScaledSide
    }

    /// The size libwebp's scaler decodes to for a thumbnail of `size`: `gap` times it
    /// (`DecodeOptions/thumbnailReducingGap`, 2 by default; the source when that is not smaller), so
    /// that Core's Lanczos3 makes the exact size from about `gap` pixels per output pixel. libwebp's
    /// scaler is an area average: cheap and right as the first step, softer than Lanczos as the last.
    static func shrinkOnLoadSize(
        from source: PixelSize, to size: PixelSize,
        gap: Double = ImageResampler.thumbnailReducingGap
    ) -> PixelSize {
        let gap = max(1, gap)
        let width = Int((Double(size.width) * gap).rounded(.up)), height = Int((Double(size.height) * gap).rounded(.up))
        guard width < source.width && height < source.height else { return source }
        return PixelSize(width: width, height: height)
    }

    /// `WebPBitstreamFeatures.format` of lossy data (0: mixed or undefined, 2: lossless).
    private static let lossyFormat: Int32 = 1
    /// Lossy images this narrow (in either direction) are scaled by Core.
    private static let narrowestScaledSide = 2
}
