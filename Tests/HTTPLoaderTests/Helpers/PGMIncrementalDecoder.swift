import Foundation
import WebImageCore

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
                    guard let value = Int(current), value > 0, value <= 65_535 else {
                        throw .badImageData(reason: "bad PGM header")
                    }
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
        return Image(
            pixels: PixelBuffer(width: header.width, height: header.height, layout: .gray8, bytes: pixels),
            format: .pgm)
    }
}
