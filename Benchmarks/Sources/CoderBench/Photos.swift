import Foundation
import WebImage

/// A 12-megapixel (4000 x 3000) photograph made by tiling the Kodak photos from the shared corpus
/// (or, without it, a synthetic gradient picture of the same size).
enum Photos {
    static func twelveMegapixels() throws -> PixelBuffer {
        let width = 4000, height = 3000
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/photos")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path))?.filter { $0.hasSuffix(".png") }.sorted() ?? []
        let tiles = try files.map { try PNGCoder().decode(Data(contentsOf: corpus.appendingPathComponent($0)), options: DecodeOptions()).pixels.converted(to: .rgb8) }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        if tiles.isEmpty {
            for i in 0..<(width * height) { bytes[i * 3] = UInt8(i % width % 256); bytes[i * 3 + 1] = UInt8(i / width % 256); bytes[i * 3 + 2] = 128 }
            return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
        }
        var y = 0, tileIndex = 0
        while y < height {
            var x = 0, rowHeight = 0
            while x < width {
                let tile = tiles[tileIndex % tiles.count]
                tileIndex += 1
                let w = min(tile.width, width - x), h = min(tile.height, height - y)
                for ty in 0..<h {
                    let src = ty * tile.bytesPerRow, dst = ((y + ty) * width + x) * 3
                    bytes.replaceSubrange(dst..<(dst + w * 3), with: tile.bytes[src..<(src + w * 3)])
                }
                x += w
                rowHeight = max(rowHeight, h)
            }
            y += rowHeight
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }
}
