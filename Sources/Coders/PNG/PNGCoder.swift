internal import CPNG
import Foundation
import WebImageCore

/// Decodes and encodes PNG with libpng (every bit depth, color type, tRNS and Adam7).
///
/// Decoding yields the cheapest layout that keeps the image's information: `.gray8` for gray,
/// `.rgb8` for opaque color, `.rgba8` whenever there is alpha or transparency; 16-bit samples are
/// reduced to 8. The pixel limit is checked from IHDR before any pixel memory is allocated. The ICC
/// profile (iCCP), EXIF (eXIf) and XMP (iTXt) are on `Image/metadata`, and an EXIF orientation is
/// applied as browsers do (unless `DecodeOptions/applyOrientation` is off; it is reported either way).
/// `gAMA` and `cHRM` are ignored, as libvips does, unless `DecodeOptions/appliesPNGGamma` asks to show
/// them as browsers do. Thumbnails
/// of non-interlaced images are downsampled while rows are read, so they never hold the full image.
///
/// Encoding writes Gray8, RGB8 or RGBA8 at 8 bits with `EncodeOptions/compressionLevel` as the zlib
/// level, Adam7 interlacing when `EncodeOptions/progressive` is set, and the ICC profile when given.
///
/// ```swift
/// PNGCoder.register()
/// let image = try PNGCoder().decode(data, options: DecodeOptions())
/// ```
public struct PNGCoder: ProgressiveImageCoder {
    /// A PNG coder.
    public init() {}

    /// Registers a PNG coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(PNGCoder()) }

    public var decodableFormats: [ImageFormat] { [.png] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    public func canDecodeIncrementally(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        PNGIncrementalDecoder(options: options)
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        try PNGIncrementalDecoder(options: options).decodeComplete(data)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .png else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        // Gray, RGB or RGBA at 8 bits: the layouts map one to one onto PNG color types.
        let channels = pixels.layout.bytesPerPixel
        var message = [CChar](repeating: 0, count: 200)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        // The shim mallocs `output` on success only; Data takes it over and frees it.
        let code = pixels.bytes.withUnsafeBufferPointer { raw in
            let icc = options.colorProfile(for: image) ?? Data()
            return icc.withUnsafeBytes { profile in
                cpng_encode(
                    raw.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(channels),
                    pixels.bytesPerRow, Int32(max(0, min(9, options.compressionLevel))),
                    options.rowFilter == .none ? 1 : 0, options.progressive ? 1 : 0,
                    profile.bindMemory(to: UInt8.self).baseAddress, profile.count, &output, &size, &message)
            }
        }
        guard code == Int32(CPNG_OK), let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .badImageData(reason: "PNG encode: \(reason.isEmpty ? "out of memory" : reason)")
        }
        return Data(bytesNoCopy: output, count: size, deallocator: .free)
    }
}
