import CPNG
import Foundation
import WebImageCore

/// Decodes and encodes PNG with libpng (every bit depth, color type, tRNS and Adam7).
///
/// Decoding yields the cheapest layout that keeps the image's information: `.gray8` for gray,
/// `.rgb8` for opaque color, `.rgba8` whenever there is alpha or transparency; 16-bit samples are
/// reduced to 8. The pixel limit is checked from IHDR before any pixel memory is allocated.
///
/// ```swift
/// PNGCoder.register()
/// let image = try PNGCoder().decode(data, options: DecodeOptions())
/// ```
public struct PNGCoder: ProgressiveImageCoder {
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

    // Bits of png_image.format (png.h's PNG_FORMAT_FLAG_*), which Swift cannot import as macros.
    private static let alphaFlag: UInt32 = 0x01
    private static let colorFlag: UInt32 = 0x02

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let decoder = PNGIncrementalDecoder(options: options)
        try decoder.append(data)
        return try decoder.finish()
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .png else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.packed()
        if let limit = options.maxPixelSize {
            let size = ImageResampler.thumbnailSize(width: pixels.width, height: pixels.height, limit: limit,
                                                    preserveAspectRatio: true)
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(pixels.width)
        png.height = UInt32(pixels.height)
        png.format = switch pixels.layout {
        case .rgba8: Self.alphaFlag | Self.colorFlag
        case .rgb8: Self.colorFlag
        case .gray8: 0
        }
        let stride = Int32(pixels.bytesPerRow)
        // First call measures, second writes.
        var size = 0
        let measured = pixels.bytes.withUnsafeBytes { raw in
            png_image_write_to_memory(&png, nil, &size, 0, raw.baseAddress, stride, nil)
        }
        guard measured != 0, size > 0 else { throw .badImageData(reason: "PNG encode: \(Self.message(png))") }
        var output = Data(count: size)
        let written = output.withUnsafeMutableBytes { out in
            pixels.bytes.withUnsafeBytes { raw in
                png_image_write_to_memory(&png, out.baseAddress, &size, 0, raw.baseAddress, stride, nil)
            }
        }
        png_image_free(&png)
        guard written != 0 else { throw .badImageData(reason: "PNG encode: \(Self.message(png))") }
        output.count = size
        return output
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
