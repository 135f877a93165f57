// blur-bench: BlurTransformer on a 12 MP photo at sigma 10 next to libvips's gaussblur (through pyvips, in
// memory, so neither side decodes or encodes), the `vips gaussblur` command on a .v file, and
// SharpenTransformer on a downscaled-size photo next to Pillow's UnsharpMask, in one run.
//
// `swift run -c release blur-bench --python PATH` from the Benchmarks folder, where PATH is a Python with
// pyvips, Pillow and NumPy (scripts/transform-bench makes one). Without --python only our side runs.
import Foundation
import WebImageCore
import WebImageTransformers

let arguments = CommandLine.arguments
let python = arguments.firstIndex(of: "--python").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("blur-bench")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

/// Runs of each timed case; the table shows the best (the least disturbed by whatever else runs).
let runs = 11
let sigma = 10.0
let sharpenSigma = 0.5

let photo = BenchPhoto.make(width: 4000, height: 3000)
let photoFile = scratch.appendingPathComponent("photo.rgb")
try Data(photo.bytes).write(to: photoFile)
let small = BenchPhoto.make(width: 1000, height: 750)
let smallFile = scratch.appendingPathComponent("small.rgb")
try Data(small.bytes).write(to: smallFile)

print("blur-bench: \(photo.width)x\(photo.height) RGB (12 MP), \(ProcessInfo.processInfo.activeProcessorCount) processors,"
      + " best of \(runs) runs; ratio = ours / peer; cpu = processor time of all threads\n")
print(Table.row(["case", "ours ms", "peer ms", "ratio", "ours cpu", "peer cpu", "ratio", "peer"]))

// Blur, sigma 10, in memory on both sides.
let blur = try BlurTransformer(sigma: sigma)
var blurred = photo
let ourBlur = Timing.best(runs) { blurred = try! blur.transformFrame(photo) }
try Data(blurred.bytes).write(to: scratch.appendingPathComponent("ours-blur.rgb"))
let vipsBlur = python.flatMap { Peer.measure($0, ["gaussblur", photoFile.path, "4000", "3000", "\(sigma)", "\(runs)"]) }
Table.compare("gaussian blur sigma 10, 12 MP", ours: ourBlur, peer: vipsBlur, peerName: "pyvips gaussblur (in memory)")

// The command-line tool on vips's own uncompressed format: includes starting the process and writing 36 MB.
let vipsFile = scratch.appendingPathComponent("photo.v")
if Peer.run("/usr/bin/vips", ["rawload", photoFile.path, vipsFile.path, "4000", "3000", "3"]) {
    let output = scratch.appendingPathComponent("vips-blur.v").path
    let command = Peer.measureCommand(runs, "/usr/bin/vips", ["gaussblur", vipsFile.path, output, "\(sigma)"])
    Table.compare("  the same, `vips gaussblur in.v out.v 10`", ours: ourBlur, peer: command, peerName: "vips 8.14 command")
}

// Sharpen at the size a downscale leaves (1000x750), imgproxy's display-resolution sigma.
let sharpen = try SharpenTransformer(sigma: sharpenSigma)
let ourSharpen = Timing.best(runs) { _ = try! sharpen.transformFrame(small) }
let pillowSharpen = python.flatMap { Peer.measure($0, ["unsharp", smallFile.path, "1000", "750", "\(sharpenSigma)", "\(runs)"]) }
Table.compare("sharpen sigma 0.5, 1000x750", ours: ourSharpen, peer: pillowSharpen, peerName: "Pillow UnsharpMask(0.5, 100, 0)")

// How close each blur is to a true gaussian (float64, NumPy) on a 600x400 window.
if let python, let report = Peer.output(python, ["accuracy", photoFile.path, "4000", "3000", "\(sigma)",
                                                 scratch.appendingPathComponent("ours-blur.rgb").path]) {
    print("\nError against a true gaussian (levels of 255, 600x400 window): " + report)
}
