import Foundation
import WebImageCore

extension ImageFormat {
    /// Binary PGM ("P5"): a header and raw gray rows, simple enough to decode row by row in a test.
    static let pgm = ImageFormat("pgm", mimeType: "image/x-portable-graymap")
}

/// A test-only progressive coder for binary PGM: `P5\n<width> <height>\n255\n` then width*height bytes.
/// Core has no real coders in this branch; this one proves partial images flow before the last byte.
struct PGMCoder: ProgressiveImageCoder {
    var decodableFormats: [ImageFormat] { [.pgm] }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("P5".utf8)) }
    func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let decoder = PGMIncrementalDecoder()
        try decoder.append(data)
        return try decoder.finish()
    }

    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder { PGMIncrementalDecoder() }

    func canEncode(to format: ImageFormat) -> Bool { format == .pgm }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        let gray = image.pixels.converted(to: .gray8)
        return PGMCoder.file(width: gray.width, height: gray.height, pixels: gray.bytes)
    }

    /// A PGM file of `pixels` (row-major, one byte each).
    static func file(width: Int, height: Int, pixels: [UInt8]) -> Data {
        Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }

    /// A `width` x `height` PGM with a recognisable pattern.
    static func sample(width: Int = 16, height: Int = 16) -> Data {
        file(width: width, height: height, pixels: (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 * 7) })
    }
}
