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
public struct PNGCoder: ImageCoder {
    public init() {}

    /// Registers a PNG coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(PNGCoder()) }

    public var decodableFormats: [ImageFormat] { [.png] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    // Bits of png_image.format (png.h's PNG_FORMAT_FLAG_*), which Swift cannot import as macros.
    private static let alphaFlag: UInt32 = 0x01
    private static let colorFlag: UInt32 = 0x02

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        // libpng keeps a pointer to the bytes between begin_read and finish_read: both run inside one
        // withUnsafeBytes so the pointer stays valid.
        let result = data.withUnsafeBytes { raw in Self.decode(raw, options: options) }
        var buffer = try result.get()
        buffer = options.resizedToOutput(buffer)
        return Image(pixels: buffer, format: .png, scale: options.scale)
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, options: DecodeOptions) -> Result<PixelBuffer, ImageError> {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        // Reads the header only (signature, IHDR and the chunks before IDAT).
        guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
            return .failure(.badImageData(reason: "PNG: \(message(image))"))
        }
        let width = Int(image.width), height = Int(image.height)
        do throws(ImageError) { try options.checkDimensions(width: width, height: height) } catch { return .failure(error) }

        let hasAlpha = image.format & alphaFlag != 0
        let isColor = image.format & colorFlag != 0
        let layout: PixelLayout = hasAlpha ? .rgba8 : (isColor ? .rgb8 : .gray8)
        image.format = switch layout {
        case .rgba8: alphaFlag | colorFlag
        case .rgb8: colorFlag
        case .gray8: 0
        }
        let stride = width * layout.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: stride * height)
        let finished = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, Int32(stride), nil)
        }
        guard finished != 0 else { return .failure(.badImageData(reason: "PNG: \(message(image))")) }
        return .success(PixelBuffer(width: width, height: height, layout: layout, bytes: pixels))
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
