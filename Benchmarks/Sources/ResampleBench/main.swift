import CorpusPhotos
import Foundation
@_spi(ResamplingEngines) import WebImageCore

// resample-bench [--python PATH] [--rounds N] [--only NAME-OR-TEXT]
//
// Lanczos3 resizes (ImageResampler.resample(_:width:height:filter:), the exact kernel, no block averaging)
// of a 12 MP picture to 256 px wide and a 2 MP picture to 800 px wide, RGB and RGBA (and the image server's
// 2 MP JPEG decoded at 1/2 scale, to 500 px), by our fixed-point engine, our Float engine and Pillow's
// Image.resize(LANCZOS), side by side: each round runs the three once each, in turn, and the best of the
// rounds is kept. Then the thumbnail path (block averages first) by both engines. "bound holds": the
// fixed-point engine's error bound keeps the resample within a level of Float (else it runs in Float). The pictures are
// tiled from the corpus photos; the RGBA ones have an opaque ellipse fading to transparent at its edge.
// Pillow runs in a child (scripts/bench/resample-bench-peer.py) with the Python given by --python; without it
// only our two engines run. scripts/bench/resample-bench makes the Python (a venv with Pillow) and runs this.

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let python = option("--python")
let rounds = option("--rounds").flatMap(Int.init) ?? 5
/// Only the case of this name, or else the cases whose name contains this text.
let only = option("--only")
func selected(_ name: String) -> Bool {
    guard let only else { return true }
    return cases.contains { $0.name == only } ? name == only : name.contains(only)
}

/// Pillow in a child process that stays up: one line in, one line out.
final class PillowPeer {
    private let process = Process()
    private let input = Pipe(), output = Pipe()

    init?(python: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "scripts/bench/resample-bench-peer.py")
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path]
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch {
            FileHandle.standardError.write(Data("cannot run \(python): \(error)\n".utf8))
            return nil
        }
    }

    func ask(_ line: String) -> String {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        var answer = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            answer.append(byte)
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// Hands Pillow the pixels (through a file of raw bytes).
    func load(_ pixels: PixelBuffer) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("resample-bench-\(getpid()).raw")
        try Data(pixels.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let mode = pixels.layout == .rgba8 ? "RGBA" : "RGB"
        precondition(ask("load \(file.path) \(pixels.width) \(pixels.height) \(mode)") == "ok", "Pillow did not load")
    }

    func resize(width: Int, height: Int) -> Double? { Double(ask("resize \(width) \(height)")) }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

func milliseconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// `rgb` with an alpha channel: an opaque ellipse filling the picture, fading to transparent over its outer
/// 3 % (anti-aliased edges and a band of low alpha: the pixels the fixed-point engine recomputes in Float).
func withAlpha(_ rgb: PixelBuffer) -> PixelBuffer {
    var out = rgb.converted(to: .rgba8)
    let cx = Double(rgb.width) / 2, cy = Double(rgb.height) / 2
    for y in 0..<rgb.height {
        for x in 0..<rgb.width {
            let dx = (Double(x) + 0.5 - cx) / cx, dy = (Double(y) + 0.5 - cy) / cy
            let r = (dx * dx + dy * dy).squareRoot()
            out.bytes[(y * rgb.width + x) * 4 + 3] = UInt8(max(0, min(255, (1 - r) / 0.03 * 255)).rounded())
        }
    }
    return out
}

/// `rgb` with alpha 1...12 everywhere (a faint shadow over the whole picture): the fixed-point engine's worst
/// case, where every RGBA pixel's colour is recomputed in Float.
func faint(_ rgb: PixelBuffer) -> PixelBuffer {
    var out = rgb.converted(to: .rgba8)
    for p in 0..<(rgb.width * rgb.height) { out.bytes[p * 4 + 3] = UInt8(1 + (p &* 2_654_435_761 >> 7) % 12) }
    return out
}

let tiles = try CorpusPhotos.tiles()
guard !tiles.isEmpty else {
    print("resample-bench: no corpus photos in \(CorpusPhotos.folder.path)")
    exit(1)
}
let twelve = CorpusPhotos.tiled(tiles, width: 4000, height: 3000)
let two = CorpusPhotos.tiled(tiles, width: 1632, height: 1224, start: 5)
/// The image server's 2 MP JPEG fitted into 500 px: decoded at 1/2 scale by libjpeg, then resampled.
let server = CorpusPhotos.tiled(tiles, width: 816, height: 612, start: 9)
let cases: [(name: String, source: PixelBuffer, width: Int, height: Int)] = [
    ("12 MP -> 256 px, RGB", twelve, 256, 192),
    ("12 MP -> 256 px, RGBA", withAlpha(twelve), 256, 192),
    ("2 MP -> 800 px, RGB", two, 800, 600),
    ("2 MP -> 800 px, RGBA", withAlpha(two), 800, 600),
    ("816x612 -> 500 px, RGB", server, 500, 375),
    ("12 MP -> 256 px, faint RGBA", faint(twelve), 256, 192),
]
let pillow = python.flatMap(PillowPeer.init)
print(
    "resample-bench: Lanczos3, best of \(rounds) alternating rounds, one core each;"
        + " \(ProcessInfo.processInfo.activeProcessorCount) processors, load average \(String(format: "%.1f", loadAverage()))"
)
print(
    "case | fixed ms | Float ms | Pillow ms | fixed / Float | fixed / Pillow | Float / Pillow | bound holds | max diff vs Float"
)
print("--- | --- | --- | --- | --- | --- | --- | --- | ---")
for c in cases where selected(c.name) {
    try pillow?.load(c.source)
    var fixedBest = Double.infinity, floatBest = Double.infinity, pillowBest = Double.infinity
    var fixed = c.source, float = c.source
    for _ in 0..<rounds {
        fixedBest = min(
            fixedBest,
            milliseconds {
                fixed = ImageResampler.resample(
                    c.source, width: c.width, height: c.height, filter: .lanczos3, arithmetic: .fixedPoint)
            })
        floatBest = min(
            floatBest,
            milliseconds {
                float = ImageResampler.resample(
                    c.source, width: c.width, height: c.height, filter: .lanczos3, arithmetic: .float)
            })
        if let ms = pillow?.resize(width: c.width, height: c.height) { pillowBest = min(pillowBest, ms) }
    }
    let usesFixed = ImageResampler.fixedPointStaysWithinOneLevel(
        sourceWidth: c.source.width, sourceHeight: c.source.height,
        layout: c.source.layout, width: c.width, height: c.height, filter: .lanczos3)
    var worst = 0
    for i in 0..<fixed.bytes.count where !(c.source.layout == .rgba8 && i % 4 < 3 && float.bytes[i | 3] == 0) {
        worst = max(worst, abs(Int(fixed.bytes[i]) - Int(float.bytes[i])))
    }
    let pillowText = pillowBest.isFinite ? String(format: "%.1f", pillowBest) : "-"
    let pillowRatio = pillowBest.isFinite ? String(format: "%.2f", fixedBest / pillowBest) : "-"
    let floatPillowRatio = pillowBest.isFinite ? String(format: "%.2f", floatBest / pillowBest) : "-"
    print(
        String(
            format: "%@ | %.1f | %.1f | %@ | %.2f | %@ | %@ | %@ | %d", c.name, fixedBest, floatBest, pillowText,
            fixedBest / floatBest, pillowRatio, floatPillowRatio, usesFixed ? "yes" : "no (Float)", worst))
}

// The thumbnail path (ImageResampler.resample(_:width:height:): whole-factor block averages to no less than
// twice the target, then Lanczos3), what decoders and the image server run; Pillow's equivalent is
// thumbnail() with reducing_gap 2, not timed here.
print("")
print("thumbnail path | fixed ms | Float ms | fixed / Float | max diff vs Float")
print("--- | --- | --- | --- | ---")
for c in cases where selected(c.name) {
    var fixedBest = Double.infinity, floatBest = Double.infinity
    var fixed = c.source, float = c.source
    for _ in 0..<rounds {
        fixedBest = min(
            fixedBest,
            milliseconds {
                fixed = ImageResampler.resample(c.source, width: c.width, height: c.height, arithmetic: .fixedPoint)
            })
        floatBest = min(
            floatBest,
            milliseconds {
                float = ImageResampler.resample(c.source, width: c.width, height: c.height, arithmetic: .float)
            })
    }
    var worst = 0
    for i in 0..<fixed.bytes.count where !(c.source.layout == .rgba8 && i % 4 < 3 && float.bytes[i | 3] == 0) {
        worst = max(worst, abs(Int(fixed.bytes[i]) - Int(float.bytes[i])))
    }
    print(String(format: "%@ | %.1f | %.1f | %.2f | %d", c.name, fixedBest, floatBest, fixedBest / floatBest, worst))
}

func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
        let first = text.split(separator: " ").first
    else { return 0 }
    return Double(first) ?? 0
}
