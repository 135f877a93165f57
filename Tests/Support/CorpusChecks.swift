import Foundation
import WebImageCore

/// Runs a coder over the shared corpus: every `decode` file must decode (at its manifest size), every
/// `reject` file must fail with an ``ImageError``. Returns one message per file that did not.
public enum CorpusChecks {
    public static func failures(
        of coder: any ImageCoder, format: String,
        options: DecodeOptions = DecodeOptions(applyOrientation: false),
        checkSize: (Corpus.Entry) -> Bool = { _ in true }
    ) -> [String] {
        var failures: [String] = []
        for entry in Corpus.entries where entry.format == format {
            guard let data = FileManager.default.contents(atPath: entry.url.path) else {
                failures.append("\(entry.path): unreadable")
                continue
            }
            do {
                let image = try coder.decode(data, options: options)
                if !entry.expectDecode {
                    failures.append("\(entry.path): decoded but should be rejected")
                } else if checkSize(entry), let w = entry.width, let h = entry.height,
                    (image.width, image.height) != (w, h)
                {
                    failures.append("\(entry.path): \(image.width)x\(image.height), manifest says \(w)x\(h)")
                }
            } catch {
                if entry.expectDecode { failures.append("\(entry.path): \(error)") }
            }
        }
        return failures
    }
}

/// Builds PNG-style chunks (length, type, data, CRC-32) for hand-made test files.
public enum PNGChunk {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func make(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    /// An IHDR chunk for `width` x `height`, 8-bit RGBA.
    public static func header(width: UInt32, height: UInt32) -> [UInt8] {
        make("IHDR", bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0])
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO 3309, as PNG uses).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

/// Test pictures made in code.
public enum TestPictures {
    /// A `width` x `height` image with red, green, blue and yellow quadrants (top-left, top-right,
    /// bottom-left, bottom-right).
    public static func quadrants(width: Int = 64, height: Int = 48, layout: PixelLayout = .rgb8) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let color: [UInt8] =
                    switch (x < width / 2, y < height / 2) {
                    case (true, true): [255, 0, 0]
                    case (false, true): [0, 255, 0]
                    case (true, false): [0, 0, 255]
                    case (false, false): [255, 255, 0]
                    }
                bytes += layout == .rgba8 ? color + [255] : color
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// A smooth gradient with a varying alpha channel when `layout` is `.rgba8`.
    public static func gradient(width: Int, height: Int, layout: PixelLayout) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let values = [
                    UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                    UInt8((x + y) * 255 / max(1, width + height - 2)), UInt8(255 - (x * 200 / max(1, width))),
                ]
                bytes += values.prefix(layout.bytesPerPixel)
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// Largest difference between two buffers' bytes (same size and layout required).
    public static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height && a.layout == b.layout)
        return zip(a.packed().bytes, b.packed().bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}
