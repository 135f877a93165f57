import Foundation
import WebImageCore
import WebImageTestSupport

// Writes one file of every hostile class into the folder given as the only argument and prints, per
// file, "name<TAB>path<TAB>modes" for scripts/bench/hostile-bench (modes: which fetch runs to measure).
// Not a product: a tool for the measurement script, built from the same generators the tests use.

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: hostile-files FOLDER\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

/// The classes of issue "decoding untrusted images", each with the fetch modes worth measuring.
let cases: [(name: String, file: String, modes: String, make: () -> Data)] = [
    (
        "gif 10k tiny frames 4000x4000", "many-frames.gif", "to png,to gif,thumb 64",
        { HostileFiles.manyFramesGIF(frames: 10_000, screen: PixelSize(4000)) }
    ),
    (
        "gif 200 frames 10000^2 on 16x16", "clipped-huge.gif", "decode,to gif,thumb 64",
        { HostileFiles.clippedHugeFramesGIF(frames: 200, frameSize: PixelSize(10_000), screen: PixelSize(16)) }
    ),
    (
        "gif allowed 300 frames 500x500", "banded.gif", "to gif,to png,thumb 64",
        { HostileFiles.bandedAnimationGIF(frames: 300, size: PixelSize(500)) }
    ),
    (
        "gif frame 2 of 5 damaged", "damaged.gif", "to png,to gif",
        { HostileFiles.damagedFrameGIF(frames: 5, size: PixelSize(200), damaged: 2) }
    ),
    (
        "webp 10k frames 1000x1000", "many-frames.webp", "to png,to webp,thumb 64",
        { HostileFiles.manyFramesAnimatedWebP(frames: 10_000, canvas: PixelSize(1000)) }
    ),
    (
        "webp lossless 65536 huffman groups", "huffman-groups.webp", "decode,thumb 64",
        { HostileFiles.manyHuffmanGroupsLosslessWebP() }
    ),
    (
        "apng 5000 frames 400x400", "many-frames.png", "to png,thumb 64",
        { HostileFiles.manyFramesAPNG(frames: 5_000, canvas: PixelSize(400)) }
    ),
    (
        "apng allowed 5000 frames 300x300", "allowed-frames.png", "to png",
        { HostileFiles.manyFramesAPNG(frames: 5_000, canvas: PixelSize(300)) }
    ),
    (
        "apng frame 2 of 10 damaged", "damaged.png", "to png",
        { HostileFiles.damagedFrameAPNG(frames: 10, canvas: PixelSize(200), damagedFrame: 1) }
    ),
    (
        "png extra compressed data", "extra-data.png", "to png",
        { HostileFiles.pngWithExtraCompressedData(size: PixelSize(200), extraRows: 50) }
    ),
    (
        "jpeg 9000 scans 10000x10000", "many-scans.jpg", "to png,thumb 64",
        { HostileFiles.manyScansProgressiveJPEG(scans: 9_000, size: PixelSize(10_000)) }
    ),
    (
        "bmp rle8 10000x10000 in 64 bytes", "empty-rle.bmp", "decode,thumb 64",
        { HostileFiles.emptyRLEBMP(size: PixelSize(10_000)) }
    ),
    (
        "tiff 100k one-row strips", "many-strips.tif", "decode,thumb 64",
        { HostileFiles.manyStripsTIFF(width: 64, rows: 100_000) }
    ),
    (
        "ico 65535 entries", "many-entries.ico", "decode,to png",
        { HostileFiles.manyEntriesICO(entries: 65_535) }
    ),
]

for entry in cases {
    let url = folder.appendingPathComponent(entry.file)
    try entry.make().write(to: url)
    print("\(entry.name)\t\(url.path)\t\(entry.modes)")
}
