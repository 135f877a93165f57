import CWebP
import Foundation
import WebImageCore

/// Decodes and encodes WebP with libwebp: lossy, lossless, alpha, and animations (frames decoded
/// lazily through Core's ``AnimatedFrames``).
///
/// Stills decode to `.rgba8` only when the bitstream has alpha, `.rgb8` otherwise; thumbnails use
/// libwebp's own scaling. The canvas size is checked against the pixel limit before any pixel memory
/// is allocated.
public struct WebPCoder: AnimatedImageCoder {
    public init() {}

    /// Registers a WebP coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(WebPCoder()) }

    public var decodableFormats: [ImageFormat] { [.webp] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }

    public func canEncode(to format: ImageFormat) -> Bool { format == .webp }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status == VP8_STATUS_OK else { throw .badImageData(reason: "WebP: bad header (status \(status.rawValue))") }
        try options.checkDimensions(width: Int(features.width), height: Int(features.height))
        let metadata = WebPChunks.metadata(of: data)
        if features.has_animation != 0 {
            let source = try makeFrameSource(for: data, options: options)
            return try Image.decodedAnimation(source: source, format: .webp, options: options, metadata: metadata)
        }
        let size = options.outputSize(width: Int(features.width), height: Int(features.height))
        let layout: PixelLayout = features.has_alpha != 0 ? .rgba8 : .rgb8
        let pixels = try WebPStillDecoder.decode(data, layout: layout, width: size.width, height: size.height,
                                                 scaled: size.width != Int(features.width) || size.height != Int(features.height))
        return Self.still(pixels, metadata: metadata, options: options)
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
        let encoded = image.isAnimated && !options.firstFrameOnly
            ? try WebPAnimationEncoder.encode(image, options: options)
            : try WebPStillEncoder.encode(image.pixels, options: options)
        guard let profile = options.iccProfile, !profile.isEmpty else { return encoded }
        return try WebPChunkWriter.adding(iccProfile: profile, to: encoded)
    }
}
