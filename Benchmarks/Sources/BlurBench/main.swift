// blur-bench: BlurTransformer on a 12 MP photo at sigma 10 next to libvips's gaussblur (through pyvips, in
// memory, so neither side decodes or encodes), the `vips gaussblur` command on a .v file, and
// SharpenTransformer on a downscaled-size photo next to Pillow's UnsharpMask, in one run.
//
// `swift run -c release blur-bench --python PATH` from the Benchmarks folder, where PATH is a Python with
// pyvips, Pillow and NumPy (scripts/bench/transform-bench makes one). Without --python only our side runs.
import Foundation
import WebImageCore
import WebImageTransformers

let arguments = CommandLine.arguments
let python = arguments.firstIndex(of: "--python").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("blur-bench")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

/// Runs of each timed case; the table shows the best (the least disturbed by whatever else runs).
let runs = 11
/// Rounds of (ours, then each peer): the machine may be shared, so each side's best comes from several
/// moments, alternating, rather than from one stretch that may have been busier for one side.
let rounds = 3
let sigma = 10.0
let sharpenSigma = 0.5

let photo = BenchPhoto.make(width: 4000, height: 3000)
let photoFile = scratch.appendingPathComponent("photo.rgb")
try Data(photo.bytes).write(to: photoFile)
let small = BenchPhoto.make(width: 1000, height: 750)
let smallFile = scratch.appendingPathComponent("small.rgb")
try Data(small.bytes).write(to: smallFile)

print(
    "blur-bench: \(photo.width)x\(photo.height) RGB (12 MP), \(ProcessInfo.processInfo.activeProcessorCount) processors,"
        + " best of \(rounds) x \(runs) runs, alternating; ratio = ours / peer; cpu = processor time of all threads\n")
print(Table.row(["case", "ours ms", "peer ms", "ratio", "ours cpu", "peer cpu", "ratio", "peer"]))

/// The better of two measures, field by field.
func best(_ a: Measure?, _ b: Measure?) -> Measure? {
    guard let a else { return b }
    guard let b else { return a }
    return Measure(wall: min(a.wall, b.wall), cpu: min(a.cpu, b.cpu))
}

let blur = try BlurTransformer(sigma: sigma)
let sharpen = try SharpenTransformer(sigma: sharpenSigma)
let vipsFile = scratch.appendingPathComponent("photo.v")
let hasVipsCommand = Peer.run("/usr/bin/vips", ["rawload", photoFile.path, vipsFile.path, "4000", "3000", "3"])
var blurred = photo
var results: [String: Measure] = [:]
@MainActor func record(_ name: String, _ measure: Measure?) { results[name] = best(results[name], measure) }
for _ in 0..<rounds {
    // Blur, sigma 10, in memory on both sides.
    record("ours blur", Timing.best(runs) { blurred = try! blur.transformFrame(photo) })
    record(
        "pyvips blur",
        python.flatMap { Peer.measure($0, ["gaussblur", photoFile.path, "4000", "3000", "\(sigma)", "\(runs)"]) })
    // The command-line tool on vips's own uncompressed format: includes starting the process and writing 36 MB.
    if hasVipsCommand {
        record(
            "vips command",
            Peer.measureCommand(
                runs, "/usr/bin/vips",
                [
                    "gaussblur", vipsFile.path,
                    scratch.appendingPathComponent("vips-blur.v").path, "\(sigma)",
                ]))
    }
    // Sharpen at the size a downscale leaves (1000x750), imgproxy's display-resolution sigma.
    record("ours sharpen", Timing.best(runs) { _ = try! sharpen.transformFrame(small) })
    record(
        "pillow sharpen",
        python.flatMap { Peer.measure($0, ["unsharp", smallFile.path, "1000", "750", "\(sharpenSigma)", "\(runs)"]) })
}
try Data(blurred.bytes).write(to: scratch.appendingPathComponent("ours-blur.rgb"))
Table.compare(
    "gaussian blur sigma 10, 12 MP", ours: results["ours blur"]!, peer: results["pyvips blur"],
    peerName: "pyvips gaussblur (in memory)")
if let command = results["vips command"] {
    Table.compare(
        "  the same, vips command on a .v file", ours: results["ours blur"]!, peer: command,
        peerName: "`vips gaussblur in.v out.v 10`")
}
Table.compare(
    "sharpen sigma 0.5, 1000x750", ours: results["ours sharpen"]!, peer: results["pillow sharpen"],
    peerName: "Pillow UnsharpMask(0.5, 100, 0)")

// How close each blur is to a true gaussian (float64, NumPy) on a 600x400 window.
if let python,
    let report = Peer.output(
        python,
        [
            "accuracy", photoFile.path, "4000", "3000", "\(sigma)",
            scratch.appendingPathComponent("ours-blur.rgb").path,
        ])
{
    print("\nError against a true gaussian (levels of 255, 600x400 window): " + report)
}
