import Foundation
import WebImage

/// Runs the memory case `name` (one decode of a file the main run wrote to `scratch`) and returns the
/// peak memory it added, in MB. Called in a child process, so no earlier case inflates the peak.
func peakMemoryOfCase(_ name: String) throws -> Double {
    if name.hasPrefix("gif-") { return try gifMemoryCase(name) }
    let isPNG = name.hasPrefix("png-")
    let file = isPNG ? "photo.png" : name.hasPrefix("progressive") ? "progressive.jpg" : "baseline.jpg"
    let input = try Data(contentsOf: scratch.appendingPathComponent(file))
    let coder: any ImageCoder = isPNG ? coders.png : coders.jpeg
    let before = peakMemoryMB()
    switch name {
    case "ours-thumbnail", "progressive-ours-thumbnail", "png-ours-thumbnail":
        _ = try coder.decode(input, options: thumbnail)
    case "full-resize", "progressive-full-resize", "png-full-resize":
        let full = try coder.decode(input, options: DecodeOptions())
        _ = ImageResampler.resample(full.pixels, width: 256, height: 192)
    case "raw-eighth", "progressive-raw-eighth":
        _ = Raw.jpegDecode(input, denominator: 8)
    default:
        _ = try coder.decode(input, options: DecodeOptions())
    }
    return peakMemoryMB() - before
}
