// TerminalGallery: SwiftWebImage's view binding off Apple platforms. A WebImageTarget that draws in a
// truecolor terminal shows a placeholder, then progress while loading, then the image; an animated GIF
// plays a few loops with its own frame durations.
import Foundation
import WebImage

/// Writes a line straight to stdout, unbuffered like the image output, so the two never reorder.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments.dropFirst()
let loops = arguments.first.flatMap(Int.init) ?? 2
let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Resources")
let names = ["badge-alpha.png", "baseline.jpg", "spinner.gif"]

let placeholder = Image(
    pixels: PixelBuffer(
        width: 8, height: 4, layout: .gray8,
        bytes: [UInt8](repeating: 90, count: 32)))
var context = ImageContext()
context.customManager = WebImage.shared  // the manager wired with every plugin
context.queryCacheType = .none  // always load, so the progress is visible

for name in names {
    let view = TerminalImageView(columns: 48)
    say("\(name): placeholder")
    let result: Result<ImageLoadResult, ImageError> = await withCheckedContinuation { continuation in
        view.setImage(
            with: resources.appendingPathComponent(name), placeholder: placeholder,
            context: context
        ) { result in
            if case .success(let answer) = result, !answer.isFinal { return }
            continuation.resume(returning: result)
        } progress: { progress in
            if let fraction = progress.fractionCompleted {
                say(String(format: "%@: loading %3.0f%%", name, fraction * 100))
            }
        }
    }
    switch result {
    case .success(let loaded):
        say(
            "\(name): loaded \(loaded.image.width)x\(loaded.image.height), \(loaded.image.frameCount) frame(s), URL remembered: \(view.imageURL()?.lastPathComponent ?? "none")"
        )
        if loaded.image.isAnimated {
            try view.play(loops: loops)
            say("\(name): played \(loops) loops of \(loaded.image.frameCount) frames")
        }
    case .failure(let error):
        say("\(name): failed: \(error)")
    }
}
