import CorpusPhotos
import Foundation
import WebImage

/// A 12-megapixel (4000 x 3000) photograph made by tiling the Kodak photos from the shared corpus
/// (or, without it, a synthetic gradient picture of the same size).
enum Photos {
    static func twelveMegapixels() throws -> PixelBuffer {
        let width = 4000, height = 3000
        let tiles = try CorpusPhotos.tiles()
        if tiles.isEmpty {
            var bytes = [UInt8](repeating: 0, count: width * height * 3)
            for i in 0..<(width * height) {
                bytes[i * 3] = UInt8(i % width % 256); bytes[i * 3 + 1] = UInt8(i / width % 256); bytes[i * 3 + 2] = 128
            }
            return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
        }
        return CorpusPhotos.tiled(tiles, width: width, height: height)
    }
}
