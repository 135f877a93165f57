// icc-bench: a 12 MP JPEG with a Display P3 profile converted to sRGB and written as JPEG again, by us
// (JPEGCoder decode with LittleCMSConverter, then JPEGCoder encode) and by lcms2's own `jpgicc`, the
// same work on both sides: read the file, decode, convert through the embedded profile (perceptual, no
// black point compensation, lcms's normal precalculation), encode at quality 90 with 4:2:0, write the file.
// jpgicc runs as a process, so its time includes a process start (a few ms, printed below).
// Run: cd Benchmarks && swift build -c release --product icc-bench && .build/release/icc-bench [runs]
import Foundation
import WebImage

/// Encoder quality on both sides (jpgicc's -q takes percent).
let quality = 90
let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let p3 = try Data(contentsOf: repository.appendingPathComponent("Tests/ColorManagementTests/Profiles/display-p3.icc"))

/// A 12-megapixel (4000 x 3000) photograph tiled from the Kodak photos of the shared corpus, or without it
/// a synthetic picture of the same size.
func twelveMegapixels() throws -> PixelBuffer {
    let width = 4000, height = 3000
    let corpus = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus/photos")
    let files =
        (try? FileManager.default.contentsOfDirectory(atPath: corpus.path))?.filter { $0.hasSuffix(".png") }.sorted()
        ?? []
    let tiles = try files.map {
        try PNGCoder().decode(Data(contentsOf: corpus.appendingPathComponent($0)), options: DecodeOptions()).pixels
            .converted(to: .rgb8)
    }
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let o = (y * width + x) * 3
            if tiles.isEmpty {
                bytes[o] = UInt8(x % 256); bytes[o + 1] = UInt8(y % 256); bytes[o + 2] = UInt8((x ^ y) % 256)
            } else {
                // Tiles laid edge to edge, wrapping around the corpus.
                let tile = tiles[(y / 512 * 8 + x / 768) % tiles.count]
                let p = tile.rgba(x: x % 768 % tile.width, y: y % 512 % tile.height)
                bytes[o] = p.r; bytes[o + 1] = p.g; bytes[o + 2] = p.b
            }
        }
    }
    return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icc-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let input = folder.appendingPathComponent("p3.jpg"), ourOutput = folder.appendingPathComponent("ours.jpg")
let peerOutput = folder.appendingPathComponent("jpgicc.jpg")
let photo = try twelveMegapixels()
try JPEGCoder().encode(
    Image(pixels: photo), as: .jpeg,
    options: EncodeOptions(quality: Double(quality) / 100, iccProfile: p3)
).write(to: input)

let decodeOptions: DecodeOptions = {
    var options = DecodeOptions()
    options.colorConversion = .sRGB(LittleCMSConverter())
    return options
}()
let encodeOptions = EncodeOptions(quality: Double(quality) / 100)

func ours() throws {
    let image = try JPEGCoder().decode(try Data(contentsOf: input), options: decodeOptions)
    precondition(image.metadata.iccProfile == nil, "not converted")
    try JPEGCoder().encode(image, as: .jpeg, options: encodeOptions).write(to: ourOutput)
}

func run(_ path: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice  // jpgicc prints its banner there
    try process.run()
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "\(path) failed")
}

func jpgicc() throws { try run("/usr/bin/jpgicc", ["-q\(quality)", input.path, peerOutput.path]) }

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jpgicc") else {
    print("icc-bench: jpgicc not found (Debian liblcms2-utils)")
    exit(1)
}
// Warm up both (page cache, the transform cache), then best of `runs`, alternating so load hits both alike.
try ours(); try jpgicc()
var best = (ours: Double.infinity, peer: Double.infinity)
for _ in 0..<runs {
    best.ours = min(best.ours, try milliseconds(ours))
    best.peer = min(best.peer, try milliseconds(jpgicc))
}
// Where our time goes, and what a process start costs the peer.
let data = try Data(contentsOf: input)
var plain = DecodeOptions()
plain.colorConversion = .off
var stages = (decode: Double.infinity, convert: Double.infinity, encode: Double.infinity, spawn: Double.infinity)
for _ in 0..<runs {
    var stored: Image?
    stages.decode = min(stages.decode, try milliseconds { stored = try JPEGCoder().decode(data, options: plain) })
    var converted: Image?
    stages.convert = min(
        stages.convert, try milliseconds { converted = try LittleCMSConverter().convertedToSRGB(stored!) })
    stages.encode = min(
        stages.encode, try milliseconds { _ = try JPEGCoder().encode(converted!, as: .jpeg, options: encodeOptions) })
    stages.spawn = min(stages.spawn, try milliseconds { try run("/bin/true", []) })
}

// The two outputs should show the same colours: mean absolute difference per channel.
let a = try JPEGCoder().decode(Data(contentsOf: ourOutput), options: plain).pixels
let b = try JPEGCoder().decode(Data(contentsOf: peerOutput), options: plain).pixels
let difference = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
print("icc-bench: 12 MP (4000x3000) JPEG q\(quality) with Display P3 -> sRGB JPEG q\(quality), best of \(runs)")
print(
    ["case".padding(toLength: 34, withPad: " ", startingAt: 0), "ours ms", "jpgicc ms", "ratio"].joined(
        separator: "   "))
print(
    "read+decode+convert+encode+write".padding(toLength: 36, withPad: " ", startingAt: 0)
        + String(format: "%10.1f %10.1f %8.3f", best.ours, best.peer, best.ours / best.peer))
print(
    String(
        format: "ours: decode %.1f ms, convert %.1f ms, encode %.1f ms; a process start costs %.1f ms",
        stages.decode, stages.convert, stages.encode, stages.spawn))
print(
    String(
        format: "outputs differ by %.3f levels per channel on average (%d vs %d bytes of pixels)",
        Double(difference) / Double(max(1, a.bytes.count)), a.bytes.count, b.bytes.count))
