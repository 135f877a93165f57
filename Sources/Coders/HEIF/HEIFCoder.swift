internal import CHEIF
import Foundation
import WebImageCore

/// Decodes HEIF/HEIC stills with libheif as phones write them, and encodes HEIC with x265.
///
/// The primary image is decoded with its grid tiles assembled, its alpha auxiliary image attached
/// (premultiplied alpha returned straight), 10-bit samples converted to 8 bits, and its
/// transformations (`clap`, `irot`, `imir`) applied: in HEIF these are part of the image (an EXIF
/// orientation tag is not applied on top, as browsers and Apple do), so `Image/orientation` is `.up`
/// and `DecodeOptions/applyOrientation` has no effect. Stills decode to `.rgba8` only with alpha.
/// The ICC profile goes into `ImageMetadata/iccProfile`, `nclx` code points into
/// `ImageMetadata/cicp`; EXIF (as TIFF) and XMP are read too.
///
/// Thumbnails: when a thumbnail size is asked for and the file embeds a thumbnail image at least as large
/// as the output size, that small image is decoded and resampled instead of the primary image (the
/// primary of a 12 MP iPhone photo is 48 HEVC tiles; its thumbnail is one); otherwise the primary image
/// is decoded and resampled.
///
/// Budgets: libheif's side limit is set from the pixel limit before parsing, and the primary image's size
/// is checked against the pixel limit before anything is decoded. libheif 1.15 has no way to stop a
/// decode once started, so the deadline and cancellation are checked before and after it. Image
/// sequences (`msf1`) decode as their primary still image.
public struct HEIFCoder: ImageCoder {
    /// x265's preset for encoding ("ultrafast" ... "placebo"); nil keeps libheif's default ("slow").
    public var x265Preset: String?

    /// A coder encoding with x265 at `x265Preset` (libheif's default when nil).
    public init(x265Preset: String? = nil) {
        self.x265Preset = x265Preset
    }

    /// Registers a HEIF coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(HEIFCoder()) }

    public var decodableFormats: [ImageFormat] { [.heic, .heif] }

    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .heic || format == .heif
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .heic || format == .heif }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        let file = try HEIFFile(data: data, options: options)
        let metadata = HEIFMetadata.of(file.primary)
        let output = options.outputSize(width: file.width, height: file.height)
        let pixels: PixelBuffer
        if options.thumbnailPixelSize != nil,
            let embedded = try decodeThumbnail(of: file, atLeast: output, watch: watch)
        {
            pixels = embedded
        } else {
            pixels = try HEIFPixels.decode(file.primary, watch: watch)
        }
        let resized =
            pixels.width == output.width && pixels.height == output.height
            ? pixels : ImageResampler.resample(pixels, width: output.width, height: output.height)
        return Image(
            pixels: resized, format: ImageFormat.detect(data) == .heif ? .heif : .heic, orientation: .up,
            isOrientationApplied: true, scale: options.scale, metadata: metadata)
    }

    /// The smallest embedded thumbnail at least `size` in both sides, decoded; nil when there is none.
    private func decodeThumbnail(
        of file: HEIFFile, atLeast size: PixelSize, watch: DecodeWatch
    ) throws(ImageError) -> PixelBuffer? {
        try file.withThumbnails { (thumbnails) throws(ImageError) -> PixelBuffer? in
            let large = thumbnails.filter { $0.size.width >= size.width && $0.size.height >= size.height }
            guard let best = large.min(by: { $0.size.width * $0.size.height < $1.size.width * $1.size.height }) else {
                return nil
            }
            return try HEIFPixels.decode(best.handle, watch: watch)
        }
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard canEncode(to: format) else { throw .unsupportedFormat(format) }
        return try HEIFEncoder(options: options, x265Preset: x265Preset).encode(image.pixels)
    }
}
