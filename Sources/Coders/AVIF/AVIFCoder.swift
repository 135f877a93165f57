internal import CAVIF
import Foundation
import WebImageCore

/// Decodes and encodes AVIF with libavif: stills, grids and image sequences (frames decoded lazily
/// through Core's `AnimatedFrames`), alpha (premultiplied files are returned straight), 8/10/12-bit
/// (rounded to 8 bits), colour (ICC into `ImageMetadata/iccProfile`, the `nclx` code points into
/// `ImageMetadata/cicp`), EXIF and XMP, and the `clap`, `irot` and `imir` transformations.
///
/// Stills decode to `.rgba8` only when the file has an alpha plane, `.rgb8` otherwise. The
/// orientation comes from `irot`/`imir` (an EXIF orientation tag is ignored, as browsers do); it is
/// applied unless `DecodeOptions/applyOrientation` is off, and reported in `Image/orientation`.
/// Thumbnails are a full decode resampled by Core (AV1 has no scaled decode).
///
/// Budgets: libavif's own size, side and frame-count limits are set from the options before parsing,
/// and the parsed header is checked against the pixel limit, the frame count and the total work of a
/// sequence, before the AV1 decoder allocates anything. The deadline and cancellation are checked
/// before and after each frame's AV1 decode (libavif has no callback inside one). A damaged later
/// frame ends the animation at the frame before it (Core's rule).
///
/// Not incremental: libavif 0.11 can return rows of a partly downloaded image only for grids
/// (`allowIncremental`, marked experimental), and decodes a single-item AVIF, what encoders write for
/// pictures up to 8K or more, only once every byte of it is there; the coder decodes whole files.
public struct AVIFCoder: AnimatedImageCoder {
    /// libavif's encoder speed, 0 (slowest, smallest) to 10 (fastest): 6 by default, avifenc's default.
    public var speed: Int

    /// A coder that encodes at libavif `speed` (0 slowest and smallest … 10 fastest).
    public init(speed: Int = 6) {
        self.speed = min(max(speed, Int(AVIF_SPEED_SLOWEST)), Int(AVIF_SPEED_FASTEST))
    }

    /// Registers an AVIF coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(AVIFCoder()) }

    public var decodableFormats: [ImageFormat] { [.avif] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .avif }

    public func canEncode(to format: ImageFormat) -> Bool { format == .avif }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        let decoder = try AVIFDecoder(data: data, options: options)
        let metadata = decoder.metadata
        if decoder.frameCount > 1 && !options.firstFrameOnly {
            let source = AVIFFrameSource(decoder: decoder, options: options)
            return try Image.decodedAnimation(source: source, format: .avif, options: options, metadata: metadata)
        }
        let orientation = decoder.orientation
        let pixels = try decoder.decodeFrame(at: 0, layout: decoder.hasAlpha ? .rgba8 : .rgb8, watch: watch)
        return Self.still(pixels, orientation: orientation, metadata: metadata, options: options)
    }

    /// A still turned upright by its `irot`/`imir` orientation (unless the options say not to) and fitted
    /// to the output size.
    static func still(
        _ pixels: PixelBuffer, orientation: ImageOrientation, metadata: ImageMetadata,
        options: DecodeOptions
    ) -> Image {
        var pixels = pixels
        if options.applyOrientation { pixels = pixels.applyingOrientation(orientation) }
        pixels = options.resizedToOutput(pixels)
        return Image(
            pixels: pixels, format: .avif, orientation: orientation,
            isOrientationApplied: options.applyOrientation, scale: options.scale, metadata: metadata)
    }

    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        AVIFFrameSource(decoder: try AVIFDecoder(data: data, options: options), options: options)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .avif else { throw .unsupportedFormat(format) }
        let encoder = AVIFEncoder(options: options, speed: speed)
        if image.isAnimated && !options.firstFrameOnly { return try encoder.encodeAnimation(image) }
        return try encoder.encodeStill(image.pixels)
    }
}
