import Foundation
import WebImage

// transform-bench photos FOLDER   writes the 12 MP JPEGs (prints what they are made of)
// transform-bench run FOLDER      times our thumbnails (written to FOLDER/ours/) and the 25 % resize;
//                                 prints one TSV line per measurement: "name<TAB>milliseconds"
// scripts/bench/transform-bench runs both, then the libvips and Pillow peers, and prints the table.

/// Thumbnail side: what the issue measures (a 256 px gallery thumbnail).
let thumbnailSide = 256
/// Thumbnail JPEG quality: 75, the default of vipsthumbnail and of Pillow's `save`, so the three encoders
/// spend alike.
let thumbnailQuality = 0.75
/// The full-resolution resize: to a quarter of each side.
let resizeFactor = 0.25
/// Runs per measurement; the best is kept (the least disturbed by other work on the machine).
let runs = 5

func bestTime(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        best = min(best, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }
    return best
}

func photoFiles(in folder: URL) -> [URL] {
    (1...BenchPhotos.count).map { folder.appendingPathComponent("photo-\($0).jpg") }
}

func run(folder: URL) throws {
    let outFolder = folder.appendingPathComponent("ours")
    try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: true)
    let coder = JPEGCoder()
    let decode = DecodeOptions(thumbnailPixelSize: PixelSize(thumbnailSide))
    let encode = EncodeOptions(quality: thumbnailQuality)
    var total = 0.0
    for file in photoFiles(in: folder) {
        let data = try Data(contentsOf: file)
        var output = Data()
        total += try bestTime {
            let image = try coder.decode(data, options: decode)
            output = try coder.encode(image, as: .jpeg, options: encode)
        }
        try output.write(to: outFolder.appendingPathComponent(file.lastPathComponent))
    }
    print("thumbnail\t\(total / Double(BenchPhotos.count))")

    let full = try coder.decode(try Data(contentsOf: photoFiles(in: folder)[0]), options: DecodeOptions()).pixels
    let width = Int(Double(full.width) * resizeFactor), height = Int(Double(full.height) * resizeFactor)
    var resized = full
    let resizeTime = bestTime {
        resized = ImageResampler.resample(full, width: width, height: height, filter: .lanczos3)
    }
    print("resize\t\(resizeTime)")
    let png = try PNGCoder().encode(
        Image(pixels: resized, format: .png), as: .png, options: EncodeOptions(compressionLevel: 1))
    try png.write(to: outFolder.appendingPathComponent("resize-photo-1.png"))
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: transform-bench photos|run FOLDER")
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2])
switch arguments[1] {
case "photos": print(try BenchPhotos.write(to: folder))
case "run": try run(folder: folder)
default: print("usage: transform-bench photos|run FOLDER"); exit(2)
}
