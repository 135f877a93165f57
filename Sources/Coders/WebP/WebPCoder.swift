internal import CWebP
import Foundation
import WebImageCore

/// Decodes and encodes WebP with libwebp: lossy, lossless, alpha, and animations (frames decoded
/// lazily through Core's `AnimatedFrames`).
///
/// Stills decode to `.rgba8` only when the bitstream has alpha, `.rgb8` otherwise. Thumbnails use
/// libwebp's scaler while decoding where it is right and Core's premultiplied resampler where it is not
/// (see `WebPScaling`), at the size every coder gives (`DecodeOptions/outputSize(width:height:)` of the
/// upright image).
///
/// Budgets: the canvas is checked against the pixel limit before any pixel memory is allocated;
/// animations against the frame count and total work (every frame's canvas and rectangle) before any
/// frame is decoded; libwebp's Huffman table memory for lossless data against
/// `VP8LHuffmanMemory/bound(width:height:)`. Decodes are fed to libwebp in chunks and stop with a
/// typed error at the deadline or on cancellation, checked between chunks and per frame. A damaged
/// later frame ends the animation at the frame before it (Core's rule in `AnimatedFrames`).
public struct WebPCoder: AnimatedImageCoder {
    /// A WebP coder.
    public init() {}

    /// Registers a WebP coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(WebPCoder()) }

    public var decodableFormats: [ImageFormat] { [.webp] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }

    public func canEncode(to format: ImageFormat) -> Bool { format == .webp }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, "bad header") }
        try options.checkDimensions(width: Int(features.width), height: Int(features.height))
        let metadata = WebPChunks.metadata(of: data)
        if features.has_animation != 0 {
            let source = try makeFrameSource(for: data, options: options)
            return try Image.decodedAnimation(source: source, format: .webp, options: options, metadata: metadata)
        }
        let source = PixelSize(width: Int(features.width), height: Int(features.height))
        let size = WebPScaling.outputSize(of: source, metadata: metadata, options: options)
        let layout: PixelLayout = features.has_alpha != 0 ? .rgba8 : .rgb8
        let decodeSize =
            WebPScaling.libwebpScalesCorrectly(features, from: source, to: size)
            ? WebPScaling.shrinkOnLoadSize(from: source, to: size, gap: options.thumbnailReducingGap) : source
        let pixels = try WebPStillDecoder.decode(data, layout: layout, size: decodeSize, source: source, watch: watch)
        return Self.still(
            ImageResampler.resample(pixels, width: size.width, height: size.height),
            metadata: metadata, options: options)
    }

    /// A still image with its metadata, oriented by its EXIF orientation when the options say so and
    /// resized to fit the output size once upright.
    static func still(_ pixels: PixelBuffer, metadata: ImageMetadata, options: DecodeOptions) -> Image {
        options.image(from: pixels, format: .webp, metadata: metadata)
    }

    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        try WebPFrameSource(data: data, options: options)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .webp else { throw .unsupportedFormat(format) }
        let encoded =
            image.isAnimated && !options.firstFrameOnly
            ? try WebPAnimationEncoder.encode(image, options: options)
            : try WebPStillEncoder.encode(image.pixels, options: options)
        guard let profile = options.colorProfile(for: image), !profile.isEmpty else { return encoded }
        return try WebPChunkWriter.adding(iccProfile: profile, to: encoded)
    }
}
