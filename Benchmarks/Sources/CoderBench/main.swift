// coder-bench: our coders next to the C libraries called directly, on a 12 MP photograph, in one run.
// `swift run -c release coder-bench` from the Benchmarks folder; `coder-bench gif` runs only the
// animation section (Animations.swift), `coder-bench png` only the PNG decodes (PNGDecodes.swift),
// `coder-bench avif-heif` only AVIF, HEIC and JPEG XL (AVIFHEIF.swift, JXL.swift).
import Foundation
import WebImage

let coders = (png: PNGCoder(), jpeg: JPEGCoder(), webp: WebPCoder())
let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(256))
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coder-bench")

// `coder-bench png`: only the PNG decodes (PNGDecodes.swift).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "png" {
    try runPNGDecodeBenchmarks()
    exit(0)
}

// `coder-bench gif`: only the animation section.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "gif" {
    runAnimationBenchmarks()
    exit(0)
}

// `coder-bench avif-heif`: only the AVIF, HEIC and JPEG XL section.
// `coder-bench avif-heif decode`: the same without the (slow) encodes, with more decode runs;
// `coder-bench avif-heif jxl`: the JPEG XL rows alone.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "avif-heif", CommandLine.arguments[2] == "jxl" {
    try runJXLBenchmarks(photo: try Photos.twelveMegapixels(), encode: true)
    exit(0)
}
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "avif-heif" {
    try runAVIFHEIFBenchmarks(encode: CommandLine.arguments.count == 2 || CommandLine.arguments[2] != "decode")
    exit(0)
}

// Child mode: run one memory case alone in this fresh process and print the peak memory it added.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "memory" {
    print(try peakMemoryOfCase(CommandLine.arguments[2]))
    exit(0)
}

let photo = try Photos.twelveMegapixels()
let jpeg = try coders.jpeg.encode(Image(pixels: photo), as: .jpeg, options: EncodeOptions(quality: 0.9))
let progressive = try coders.jpeg.encode(
    Image(pixels: photo), as: .jpeg, options: EncodeOptions(quality: 0.9, progressive: true))
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
try jpeg.write(to: scratch.appendingPathComponent("baseline.jpg"))
try progressive.write(to: scratch.appendingPathComponent("progressive.jpg"))
let png = try coders.png.encode(Image(pixels: photo), as: .png, options: EncodeOptions())
try png.write(to: scratch.appendingPathComponent("photo.png"))
let lossy = try coders.webp.encode(Image(pixels: photo), as: .webp, options: EncodeOptions(quality: 0.8))
let lossless = try coders.webp.encode(Image(pixels: photo), as: .webp, options: EncodeOptions(lossless: true))
let (w, h) = (Int32(photo.width), Int32(photo.height))

print("12 MP photo (4000x3000), best of N runs (ours and raw alternating); ratio = ours / raw C library\n")
print(row(["case", "ours ms", "raw ms", "ratio"]))
try compare(
    "JPEG q90 baseline decode", runs: 9, ours: { _ = try coders.jpeg.decode(jpeg, options: DecodeOptions()) },
    raw: { _ = Raw.jpegDecode(jpeg) })
try compare(
    "JPEG q90 progressive decode", runs: 7, ours: { _ = try coders.jpeg.decode(progressive, options: DecodeOptions()) },
    raw: { _ = Raw.jpegDecode(progressive) })
try compare(
    "JPEG q90 encode", runs: 7,
    ours: { _ = try coders.jpeg.encode(Image(pixels: photo), as: .jpeg, options: EncodeOptions(quality: 0.9)) },
    raw: { _ = Raw.jpegEncode(photo.bytes, width: w, height: h, quality: 90) })
try compare(
    "PNG decode", runs: 7, ours: { _ = try coders.png.decode(png, options: DecodeOptions()) },
    raw: { _ = Raw.pngDecode(png) })
try compare(
    "PNG encode (zlib level 6)", runs: 2,
    ours: { _ = try coders.png.encode(Image(pixels: photo), as: .png, options: EncodeOptions()) },
    raw: { _ = Raw.pngEncode(photo.bytes, width: w, height: h) })
try compare(
    "WebP lossy decode", runs: 7, ours: { _ = try coders.webp.decode(lossy, options: DecodeOptions()) },
    raw: { _ = Raw.webpDecode(lossy) })
try compare(
    "WebP lossless decode", runs: 5, ours: { _ = try coders.webp.decode(lossless, options: DecodeOptions()) },
    raw: { _ = Raw.webpDecode(lossless) })
try compare(
    "WebP lossy encode", runs: 3,
    ours: { _ = try coders.webp.encode(Image(pixels: photo), as: .webp, options: EncodeOptions(quality: 0.8)) },
    raw: { _ = Raw.webpEncode(photo.bytes, width: w, height: h, lossless: false) })
// Both at libwebp's lossless preset 6 (our default compressionLevel), so both do the same work.
try compare(
    "WebP lossless encode (preset 6)", runs: 2,
    ours: { _ = try coders.webp.encode(Image(pixels: photo), as: .webp, options: EncodeOptions(lossless: true)) },
    raw: { _ = Raw.webpEncodeLossless(photo.bytes, width: w, height: h, level: 6) })

print("\n256 px thumbnail of the 12 MP JPEG: time (best of 5) and peak memory (fresh process per case)\n")
print(row(["case", "ms", "peak MB", "vs raw 1/8"]))
for (label, data, prefix) in [("baseline", jpeg, ""), ("progressive", progressive, "progressive-")] {
    let raw = bestTime { _ = Raw.jpegDecode(data, denominator: 8) }
    let ours = try bestTime { _ = try coders.jpeg.decode(data, options: thumbnail) }
    let full = try bestTime(runs: 3) {
        let image = try coders.jpeg.decode(data, options: DecodeOptions())
        _ = ImageResampler.resample(image.pixels, width: 256, height: 192)
    }
    for (name, ms, key) in [
        ("ours thumbnail", ours, "ours-thumbnail"), ("full decode + resize", full, "full-resize"),
        ("raw libjpeg 1/8 scaled", raw, "raw-eighth"),
    ] {
        let memory = try peakMemoryOfChild(["memory", prefix + key])
        print(
            row([
                "\(label): \(name)", String(format: "%.1f", ms), String(format: "%.1f", memory),
                String(format: "%.2fx", ms / raw),
            ]))
    }
}

print("\n256 px thumbnail of the 12 MP PNG: rows streamed into the downsampler vs full decode + resize\n")
print(row(["case", "ms", "peak MB", "vs full"]))
let pngFull = try bestTime(runs: 3) {
    let image = try coders.png.decode(png, options: DecodeOptions())
    _ = ImageResampler.resample(image.pixels, width: 256, height: 192)
}
let pngThumbnail = try bestTime(runs: 3) { _ = try coders.png.decode(png, options: thumbnail) }
for (name, ms, key) in [
    ("ours thumbnail (streamed)", pngThumbnail, "png-ours-thumbnail"),
    ("full decode + resize", pngFull, "png-full-resize"),
] {
    let memory = try peakMemoryOfChild(["memory", key])
    print(
        row([
            "PNG: \(name)", String(format: "%.1f", ms), String(format: "%.1f", memory),
            String(format: "%.2fx", ms / pngFull),
        ]))
}

print(
    "\nResampler alone (Core's area average, 12 MP RGB to 256x192): \(String(format: "%.1f", bestTime(runs: 3) { _ = ImageResampler.resample(photo, width: 256, height: 192) })) ms"
)

runAnimationBenchmarks()
try runAVIFHEIFBenchmarks()
