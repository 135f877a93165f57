import Foundation
import WebImageCore

extension ImageFormat {
    /// The test-only format of ``RawTestCoder``.
    static let rawTest = ImageFormat("rawtest", mimeType: "image/x-rawtest", fileExtension: "raw")
}

/// A trivial codec for tests (Core has no real coders in this branch): `RAWT`, width and height as
/// 16-bit little-endian, then exactly width * height RGBA pixels. Anything shorter or longer is
/// `.badImageData`, so truncation is detected; thumbnails are made with Core's resampler.
struct RawTestCoder: ImageCoder {
    static let magic = Array("RAWT".utf8)

    var decodableFormats: [ImageFormat] { [.rawTest] }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, bytes.starts(with: Self.magic) else { throw .badImageData(reason: "no RAWT header") }
        let width = Int(bytes[4]) | Int(bytes[5]) << 8
        let height = Int(bytes[6]) | Int(bytes[7]) << 8
        try options.checkDimensions(width: width, height: height)
        guard bytes.count == 8 + width * height * 4 else {
            throw .badImageData(reason: "expected \(8 + width * height * 4) bytes, got \(bytes.count)")
        }
        var pixels = PixelBuffer(width: width, height: height, layout: .rgba8, bytes: Array(bytes[8...]))
        let size = options.outputSize(width: width, height: height)
        if size.width != width || size.height != height {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        return Image(pixels: pixels, format: .rawTest, scale: options.scale)
    }

    func canEncode(to format: ImageFormat) -> Bool { format == .rawTest }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .rawTest else { throw .unsupportedFormat(format) }
        let pixels = image.pixels.converted(to: .rgba8).packed()
        var bytes = Self.magic
        bytes += [UInt8(pixels.width & 0xFF), UInt8(pixels.width >> 8), UInt8(pixels.height & 0xFF), UInt8(pixels.height >> 8)]
        bytes += pixels.bytes.prefix(pixels.width * pixels.height * 4)
        return Data(bytes)
    }

    /// An encoded `width` x `height` image whose pixel (x, y) is (x, y, 7, 255).
    static func sample(width: Int, height: Int) -> Data {
        var bytes = magic + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
        for y in 0..<height {
            for x in 0..<width { bytes += [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), 7, 255] }
        }
        return Data(bytes)
    }
}
