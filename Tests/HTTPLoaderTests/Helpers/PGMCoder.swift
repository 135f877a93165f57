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

/// Decodes rows as they arrive; the partial image has the rows so far and zeros below.
final class PGMIncrementalDecoder: IncrementalImageDecoder {
    private var bytes = Data()
    private var header: (width: Int, height: Int, offset: Int)?

    func append(_ more: Data) throws(ImageError) {
        bytes.append(more)
        if header == nil { header = try parseHeader() }
    }

    private func parseHeader() throws(ImageError) -> (width: Int, height: Int, offset: Int)? {
        // Three whitespace-terminated fields after the magic: width, height, maxval.
        var fields: [Int] = []
        var current = ""
        for (index, byte) in bytes.enumerated() {
            if index < 2 {
                guard byte == Array("P5".utf8)[index] else { throw .badImageData(reason: "not a PGM") }
                continue
            }
            if byte == 0x0A || byte == 0x20 {
                if !current.isEmpty {
                    guard let value = Int(current), value > 0, value <= 65_535 else { throw .badImageData(reason: "bad PGM header") }
                    fields.append(value)
                    current = ""
                    if fields.count == 3 { return (fields[0], fields[1], index + 1) }
                }
            } else {
                current.append(Character(UnicodeScalar(byte)))
            }
            if index > 64 { throw .badImageData(reason: "PGM header too long") }
        }
        return nil
    }

    private var availableRows: Int {
        guard let header else { return 0 }
        return min(header.height, max(0, bytes.count - header.offset) / header.width)
    }

    func partialImage() -> Image? {
        guard let header, availableRows > 0 else { return nil }
        var image = makeImage(header, rows: availableRows)
        image.isIncomplete = availableRows < header.height
        return image
    }

    func finish() throws(ImageError) -> Image {
        guard let header, availableRows == header.height else { throw .badImageData(reason: "truncated PGM") }
        return makeImage(header, rows: header.height)
    }

    private func makeImage(_ header: (width: Int, height: Int, offset: Int), rows: Int) -> Image {
        var pixels = [UInt8](repeating: 0, count: header.width * header.height)
        let start = bytes.startIndex + header.offset
        pixels.replaceSubrange(0..<(rows * header.width), with: bytes[start..<(start + rows * header.width)])
        return Image(pixels: PixelBuffer(width: header.width, height: header.height, layout: .gray8, bytes: pixels),
                     format: .pgm)
    }
}
