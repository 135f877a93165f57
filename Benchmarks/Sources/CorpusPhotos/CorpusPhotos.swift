import Foundation
import WebImage

/// The Kodak photos of ../shared/corpus/photos, and 12 MP pictures tiled from them: the photos the coder
/// and transformer benchmarks measure on.
public enum CorpusPhotos {
    /// The corpus folder beside the repository.
    public static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/photos")
    }

    /// The corpus photos as RGB, in file-name order; empty without the corpus.
    public static func tiles() throws -> [PixelBuffer] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".png") }.sorted()
        return try files.map {
            try PNGCoder().decode(Data(contentsOf: folder.appendingPathComponent($0)), options: DecodeOptions())
                .pixels.converted(to: .rgb8)
        }
    }

    /// A `width` x `height` RGB picture of `tiles` laid row by row, starting at tile `start` (non-empty tiles).
    public static func tiled(_ tiles: [PixelBuffer], width: Int, height: Int, start: Int = 0) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var y = 0, tileIndex = start
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
