import CorpusPhotos
import Foundation
import WebImage

/// The benchmark's 12-megapixel (4000 x 3000) photos, written as JPEG (quality 90, 4:2:0) so every tool
/// reads the same files: photo `n` tiles the Kodak photos of ../shared/corpus/photos, starting at the
/// `3n`-th so each photo is a different picture. Without the corpus, a synthetic picture (gradients and
/// fine stripes) stands in, which the table then says.
enum BenchPhotos {
    static let width = 4000
    static let height = 3000
    static let count = 8
    /// Quality of the source files: a camera's usual setting.
    static let sourceQuality = 0.9

    /// Writes `photo-1.jpg` ... into `folder`; returns what they were made from.
    static func write(to folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tiles = try CorpusPhotos.tiles()
        for n in 0..<count {
            let pixels =
                tiles.isEmpty
                ? synthetic(seed: n) : CorpusPhotos.tiled(tiles, width: width, height: height, start: 3 * n)
            let data = try JPEGCoder().encode(
                Image(pixels: pixels, format: .jpeg), as: .jpeg,
                options: EncodeOptions(quality: sourceQuality))
            try data.write(to: folder.appendingPathComponent("photo-\(n + 1).jpg"))
        }
        return tiles.isEmpty
            ? "synthetic 4000x3000 pictures (no ../shared/corpus/photos)"
            : "4000x3000 tilings of the \(tiles.count) Kodak photos in ../shared/corpus/photos, JPEG q90"
    }

    private static func synthetic(seed: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                bytes[i] = UInt8((x + seed * 40) % 256)
                bytes[i + 1] = UInt8((y / 3) % 256)
                bytes[i + 2] = (x / (2 + seed % 3)) % 2 == 0 ? 40 : 220
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }
}
