import CTIFF
import Foundation
import WebImageCore

/// Decodes and encodes TIFF with libtiff.
///
/// Decoding reads the first page (directory) of the file, as imgproxy and libvips do by default, through
/// libtiff's RGBA interface: 1 to 16 bits per sample, bilevel, gray, palette, RGB, CMYK, YCbCr (also
/// JPEG-compressed), associated and unassociated alpha, strips or tiles, contiguous or planar, every
/// compression libtiff was built with (none, PackBits, LZW, Deflate, JPEG, ZSTD, WebP, ...). Floating
/// point samples are refused with `.unsupportedFormat`. The result is `.gray8` for one-sample gray images,
/// `.rgb8` without alpha and `.rgba8` (straight alpha) with it. The orientation tag is applied like a JPEG's
/// EXIF orientation (unless `DecodeOptions/applyOrientation` is off; it is reported either way), and the
/// ICC profile and XMP packet are on `Image/metadata`.
///
/// Untrusted input: the pixel limit is checked from the directory before any pixel memory is allocated,
/// libtiff refuses every single allocation larger than the pixel limit as RGBA bytes, a strip or tile
/// larger than that fails with `.decodeBudgetExceeded(.decoderMemory, ...)`, and rows are decoded in
/// bands between which the time limit and cancellation are checked. libtiff's errors (and its warnings,
/// silenced) go to the decode that caused them, never to stderr.
///
/// Encoding writes one page of 8-bit gray, RGB or RGBA (unassociated alpha) in strips: Deflate with the
/// horizontal predictor at `EncodeOptions/compressionLevel` (6 by default), uncompressed at level 0,
/// with the ICC profile when `EncodeOptions/colorProfile(for:)` gives one. An animation is written as its
/// first frame.
///
/// ```swift
/// TIFFCoder.register()
/// let image = try TIFFCoder().decode(data, options: DecodeOptions())
/// ```
public struct TIFFCoder: ImageCoder {
    /// A TIFF coder.
    public init() {}

    /// Registers a TIFF coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(TIFFCoder()) }

    public var decodableFormats: [ImageFormat] { [.tiff] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .tiff }

    public func canEncode(to format: ImageFormat) -> Bool { format == .tiff }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        try TIFFDecoder.decode(data, options: options)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .tiff else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        guard pixels.width > 0, pixels.height > 0, pixels.width <= Int(UInt32.max), pixels.height <= Int(UInt32.max)
        else {
            throw .invalidParameter(name: "image", reason: "TIFF cannot hold a \(pixels.width)x\(pixels.height) image")
        }
        var output = ctiff_buffer()
        defer { free(output.bytes) }
        var message = [CChar](repeating: 0, count: 256)
        let icc = options.colorProfile(for: image) ?? Data()
        let ok = pixels.bytes.withUnsafeBufferPointer { buffer in
            icc.withUnsafeBytes { profile in
                ctiff_encode(
                    buffer.baseAddress, UInt32(pixels.width), UInt32(pixels.height),
                    Int32(pixels.layout.bytesPerPixel), pixels.bytesPerRow,
                    Int32(max(0, min(9, options.compressionLevel))),
                    profile.bindMemory(to: UInt8.self).baseAddress, profile.count, &output, &message, message.count)
            }
        }
        guard ok == 1, let bytes = output.bytes else {
            throw .badImageData(reason: "TIFF encode: \(TIFFDecoder.text(message))")
        }
        return Data(bytes: bytes, count: output.size)
    }
}
