import Foundation
import WebImageCore

extension ImageFormat {
    /// The test-only format of ``RawImageCoder``.
    public static let raw = ImageFormat("raw", mimeType: "image/x-raw-test", fileExtension: "raw")
}

/// A complete coder for ``ImageFormat/raw``, real enough to exercise the manager's and the caches' decode
/// paths without any C library: `RAWI`, width and height as 16-bit big-endian, a layout byte (0 RGBA,
/// 1 RGB, 2 gray), then exactly width × height pixels. Anything shorter or longer is `.badImageData`, so
/// truncation is detected; thumbnails are made with Core's resampler.
public struct RawImageCoder: ImageCoder {
    /// The four bytes every file starts with.
    public static let magic = Array("RAWI".utf8)
    /// The layouts a file's layout byte names, in order.
    static let layouts: [PixelLayout] = [.rgba8, .rgb8, .gray8]

    /// Written into each decoded image's XMP metadata, so a test can tell which of two coders decoded it.
    public var tag: String

    /// A coder whose decoded images carry `tag` in their XMP metadata.
    public init(tag: String = "default") { self.tag = tag }

    public var decodableFormats: [ImageFormat] { [.raw] }

    public func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= 9, bytes.starts(with: Self.magic) else { throw .badImageData(reason: "not RAWI") }
        let width = Int(bytes[4]) << 8 | Int(bytes[5])
        let height = Int(bytes[6]) << 8 | Int(bytes[7])
        guard Int(bytes[8]) < Self.layouts.count else { throw .badImageData(reason: "bad layout") }
        let layout = Self.layouts[Int(bytes[8])]
        try options.checkDimensions(width: width, height: height)
        let count = width * height * layout.bytesPerPixel
        guard bytes.count >= 9 + count else { throw .badImageData(reason: "truncated") }
        guard bytes.count == 9 + count else {
            throw .badImageData(reason: "expected \(9 + count) bytes, got \(bytes.count)")
        }
        var pixels = PixelBuffer(width: width, height: height, layout: layout, bytes: Array(bytes[9...]))
        let size = options.outputSize(width: width, height: height)
        if size.width != width || size.height != height {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var metadata = ImageMetadata()
        metadata.xmp = Data(tag.utf8)
        return Image(pixels: pixels, format: .raw, scale: options.scale, metadata: metadata)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .raw }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .raw else { throw .unsupportedFormat(format) }
        return Self.encode(image.pixels)
    }

    /// `pixels` as a RAWI file, in their own layout (8-bit RGBA, RGB or gray).
    public static func encode(_ pixels: PixelBuffer) -> Data {
        let packed = pixels.packed()
        let layoutByte = UInt8(layouts.firstIndex(of: packed.layout) ?? 0)
        var data = Data(magic)
        data.append(contentsOf: [
            UInt8(packed.width >> 8), UInt8(packed.width & 0xFF),
            UInt8(packed.height >> 8), UInt8(packed.height & 0xFF), layoutByte,
        ])
        data.append(contentsOf: packed.bytes)
        return data
    }

    /// A solid gray RAWI file.
    public static func solid(width: Int = 4, height: Int = 4, gray: UInt8 = 128) -> Data {
        encode(
            PixelBuffer(
                width: width, height: height, layout: .gray8,
                bytes: [UInt8](repeating: gray, count: width * height)))
    }

    /// A `width` × `height` RGBA RAWI file whose pixel (x, y) is (x, y, 7, 255): every pixel differs from
    /// its neighbours, so a wrong row or column shows.
    public static func sample(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width { bytes += [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), 7, 255] }
        }
        return encode(PixelBuffer(width: width, height: height, layout: .rgba8, bytes: bytes))
    }
}
