import Foundation
import WebImageCore

/// Decodes and encodes Windows bitmaps (BMP), in Swift, with no C library.
///
/// Decoding reads every header version in use (OS/2 1.x and 2.x, Windows 3 `BITMAPINFOHEADER`, V2 to V5),
/// 1, 2, 4 and 8-bit palettes, RLE8 and RLE4, 16 and 32-bit pixels with bit masks (and alpha), 24-bit
/// pixels, bottom-up and top-down rows, and a V5 header's embedded ICC profile. Where the format is vague
/// it reads as browsers do: the fourth byte of 32-bit pixels is alpha unless it is zero everywhere (then
/// the image is opaque), palette indices past the palette are black, pixels an RLE stream skips are
/// transparent. Embedded JPEG or PNG pixels (`BI_JPEG`, `BI_PNG`) are refused with `.unsupportedFormat`.
/// The result is `.rgb8`, or `.rgba8` when any pixel is not opaque.
///
/// Untrusted input: the pixel limit is checked from the header before pixel memory is allocated; a file
/// whose pixel data ends early fails with `.badImageData` unless `DecodeOptions/allowPartialImage` asks
/// for the rows that are there; the time limit and cancellation are checked every 64 rows (every 64K RLE
/// codes).
///
/// Encoding writes gray images as 8-bit palette files, opaque images as 24-bit and images with alpha as
/// 32-bit `BI_BITFIELDS` with a V4 header (alpha mask `0xFF000000`), rows bottom-up, as Windows writes them;
/// an animation is written as its first frame.
///
/// ```swift
/// BMPCoder.register()
/// let image = try BMPCoder().decode(data, options: DecodeOptions())
/// ```
public struct BMPCoder: ImageCoder {
    /// A BMP coder.
    public init() {}

    /// Registers a BMP coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(BMPCoder()) }

    public var decodableFormats: [ImageFormat] { [.bmp] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .bmp }

    public func canEncode(to format: ImageFormat) -> Bool { format == .bmp }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> Image in
                guard raw.count >= 14 + 12, raw[0] == 0x42, raw[1] == 0x4D else {
                    throw .badImageData(reason: "BMP: not a BMP file")
                }
                let offset = Int(raw[10]) | Int(raw[11]) << 8 | Int(raw[12]) << 16 | Int(raw[13]) << 24
                let reader = DIBReader(bytes: UnsafeRawBufferPointer(rebasing: raw[14...]))
                let header = try reader.header()
                // A pixel offset inside the headers is wrong; readers then take the pixels right after the palette.
                let pixelOffset = offset - 14 >= header.tableOffset ? offset - 14 : nil
                let (pixels, incomplete) = try reader.pixels(
                    header: header, pixelOffset: pixelOffset,
                    rows: abs(header.height), andMask: false,
                    options: options, watch: watch)
                let profile = header.profile.map {
                    Data(UnsafeRawBufferPointer(rebasing: raw[(14 + $0.lowerBound)..<(14 + $0.upperBound)]))
                }
                return options.image(
                    from: pixels, format: .bmp, metadata: ImageMetadata(iccProfile: profile),
                    isIncomplete: incomplete)
            }
        }
        return try result.get()
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .bmp else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        return try BMPWriter.file(pixels)
    }
}
