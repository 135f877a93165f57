import Foundation
import WebImageCore

extension ImageFormat {
    /// A trivial test format: "RAWI", width and height as UInt16 big-endian, a layout byte, then pixels.
    static let raw = ImageFormat("raw", mimeType: "image/x-raw-test")
}

/// A complete coder for ``ImageFormat/raw``: real enough to exercise the manager's decode path
/// (and truncation errors) without any C library.
struct RawImageCoder: ImageCoder {
    static let magic = Array("RAWI".utf8)
    var tag = "default"

    var decodableFormats: [ImageFormat] { [.raw] }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= 9, bytes.starts(with: Self.magic) else { throw .badImageData(reason: "not RAWI") }
        let width = Int(bytes[4]) << 8 | Int(bytes[5])
        let height = Int(bytes[6]) << 8 | Int(bytes[7])
        guard let layout = [PixelLayout.rgba8, .rgb8, .gray8][safe: Int(bytes[8])] else {
            throw .badImageData(reason: "bad layout")
        }
        try options.checkDimensions(width: width, height: height)
        let count = width * height * layout.bytesPerPixel
        guard bytes.count >= 9 + count else { throw .badImageData(reason: "truncated") }
        var pixels = PixelBuffer(width: width, height: height, layout: layout, bytes: Array(bytes[9..<(9 + count)]))
        let size = options.outputSize(width: width, height: height)
        if size.width != width || size.height != height {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var metadata = ImageMetadata()
        metadata.xmp = Data(tag.utf8)
        return Image(pixels: pixels, format: .raw, scale: options.scale, metadata: metadata)
    }

    func canEncode(to format: ImageFormat) -> Bool { format == .raw }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        Self.encode(image.pixels)
    }

    static func encode(_ pixels: PixelBuffer) -> Data {
        let packed = pixels.packed()
        let layoutByte: UInt8 = switch packed.layout { case .rgba8: 0; case .rgb8: 1; case .gray8: 2 }
        var data = Data(magic)
        data.append(contentsOf: [UInt8(packed.width >> 8), UInt8(packed.width & 0xFF),
                                 UInt8(packed.height >> 8), UInt8(packed.height & 0xFF), layoutByte])
        data.append(contentsOf: packed.bytes)
        return data
    }

    /// A solid-color RAWI file.
    static func solid(width: Int = 4, height: Int = 4, gray: UInt8 = 128) -> Data {
        encode(PixelBuffer(width: width, height: height, layout: .gray8,
                           bytes: [UInt8](repeating: gray, count: width * height)))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
