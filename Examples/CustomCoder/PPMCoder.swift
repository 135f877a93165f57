import Foundation
import WebImageCore

extension ImageFormat {
    /// Netpbm's binary pixmap (P6) and graymap (P5): a format SwiftWebImage does not ship.
    static let ppm = ImageFormat("ppm", mimeType: "image/x-portable-pixmap")
}

/// A coder for binary PPM (P6, RGB) and PGM (P5, gray) files with 8-bit samples: the whole
/// `ImageCoder` protocol in a page.
struct PPMCoder: ImageCoder {
    var decodableFormats: [ImageFormat] { [.ppm] }

    func canDecode(_ data: Data) -> Bool {
        data.starts(with: Array("P6".utf8)) || data.starts(with: Array("P5".utf8))
    }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let bytes = [UInt8](data)
        var cursor = 2
        // Header: magic, then width, height and maxval as ASCII numbers separated by whitespace or comments.
        func number() throws(ImageError) -> Int {
            while cursor < bytes.count {
                if bytes[cursor] == UInt8(ascii: "#") {
                    while cursor < bytes.count && bytes[cursor] != 0x0A { cursor += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) {
                    cursor += 1
                } else {
                    break
                }
            }
            var value = 0
            let start = cursor
            while cursor < bytes.count, (0x30...0x39).contains(bytes[cursor]), value < 1 << 24 {
                value = value * 10 + Int(bytes[cursor] - 0x30)
                cursor += 1
            }
            guard cursor > start else { throw .badImageData(reason: "PPM header is malformed") }
            return value
        }
        let layout: PixelLayout = bytes[1] == UInt8(ascii: "6") ? .rgb8 : .gray8
        let width = try number(), height = try number(), maxValue = try number()
        guard maxValue == 255 else { throw .badImageData(reason: "only 8-bit PPM is supported") }
        try options.checkDimensions(width: width, height: height)
        cursor += 1  // the single whitespace byte after maxval
        let count = width * height * layout.bytesPerPixel
        guard bytes.count - cursor >= count else { throw .badImageData(reason: "PPM pixel data is truncated") }
        var pixels = PixelBuffer(
            width: width, height: height, layout: layout, bytes: Array(bytes[cursor..<(cursor + count)]))
        let size = options.outputSize(width: width, height: height)
        if size.width != width || size.height != height {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        return Image(pixels: pixels, format: .ppm, scale: options.scale)
    }

    func canEncode(to format: ImageFormat) -> Bool { format == .ppm }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        let pixels = image.pixels.layout == .gray8 ? image.pixels.packed() : image.pixels.converted(to: .rgb8)
        let magic = pixels.layout == .gray8 ? "P5" : "P6"
        var data = Data("\(magic)\n\(pixels.width) \(pixels.height)\n255\n".utf8)
        data.append(contentsOf: pixels.bytes)
        return data
    }
}
