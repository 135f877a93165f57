import Foundation
import WebImageCore
import WebImageTransformers

/// Inputs and readers the geometry tests share.
enum GeometryFixtures {
    /// The RGB pattern scripts/reference/geometry-reference.py rotates (same formula).
    static func pattern(width: Int = 23, height: Int = 17) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                bytes += [
                    UInt8((x * 37 + y * 11) % 256), UInt8((x * 5 + y * 29 + 80) % 256), UInt8((x * y * 3 + 7) % 256),
                ]
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }

    /// A buffer whose every pixel differs: `layout` bytes counting up.
    static func distinct(width: Int, height: Int, layout: PixelLayout) -> PixelBuffer {
        let count = width * height * layout.bytesPerPixel
        return PixelBuffer(
            width: width, height: height, layout: layout,
            bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) })
    }

    /// One line of geometry-reference.tsv.
    struct Reference {
        let kind: String, parameter: String
        let width: Int, height: Int
        let bytes: [UInt8]
        let classes: [Character]
    }

    static let references: [Reference] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "geometry-reference.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let hex = Array(f[4].utf8)
            let bytes = stride(from: 0, to: hex.count, by: 2).map {
                UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
            }
            return Reference(
                kind: f[0], parameter: f[1], width: Int(f[2])!, height: Int(f[3])!, bytes: bytes,
                classes: f.count > 5 ? Array(f[5]) : [])
        }
    }()

    /// The alpha channel of an RGBA buffer.
    static func alpha(_ pixels: PixelBuffer) -> [UInt8] {
        (0..<pixels.height).flatMap { y in (0..<pixels.width).map { x in pixels.rgba(x: x, y: y).a } }
    }
}
