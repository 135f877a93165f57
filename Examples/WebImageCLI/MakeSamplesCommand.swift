import ArgumentParser
import Foundation
import WebImage

/// Writes the demo's sample images with our own encoders (how `Examples/Resources` was made).
struct MakeSamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-samples",
        abstract: "Write the demo's sample images with SwiftWebImage's encoders.")

    @Argument(help: "Folder to write to.")
    var folder: String

    func run() async throws {
        WebImage.registerBuiltInCoders()
        let out = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let coders = ImageCodersManager.shared
        let photo = Image(pixels: SamplePictures.landscape(width: 480, height: 320))
        let badge = Image(pixels: SamplePictures.badge(side: 160))
        let frames = (0..<12).map {
            ImageFrame(pixels: SamplePictures.spinner(side: 96, step: $0, of: 12), duration: .milliseconds(80))
        }
        let animation = Image(frames: frames, loopCount: 0)

        let files: [(String, Data)] = [
            ("baseline.jpg", try coders.encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.85))),
            (
                "progressive.jpg",
                try coders.encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.85, progressive: true))
            ),
            ("badge-alpha.png", try coders.encode(badge, as: .png, options: EncodeOptions())),
            ("lossy.webp", try coders.encode(photo, as: .webp, options: EncodeOptions(quality: 0.8))),
            ("lossless.webp", try coders.encode(badge, as: .webp, options: EncodeOptions(lossless: true))),
            ("spinner.webp", try coders.encode(animation, as: .webp, options: EncodeOptions(quality: 0.8))),
            ("spinner.gif", try coders.encode(animation, as: .gif, options: EncodeOptions())),
            ("spinner.png", try coders.encode(animation, as: .png, options: EncodeOptions())),  // APNG
        ]
        for (name, data) in files { try data.write(to: out.appendingPathComponent(name)) }
        // Deliberately corrupt: the first third of the baseline JPEG, then bytes that are not JPEG at all.
        var corrupt = files[0].1.prefix(files[0].1.count / 3)
        corrupt.append(Data(repeating: 0x5A, count: 64))
        try Data(corrupt).write(to: out.appendingPathComponent("corrupt.jpg"))
        print("wrote \(files.count + 1) samples to \(out.path)")
    }
}

/// Synthetic pictures for the samples: smooth gradients, hard edges and transparency, so every coder
/// has something real to do.
enum SamplePictures {
    static func landscape(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let sky = y < height * 3 / 5
                let dx = Double(x - width * 3 / 4), dy = Double(y - height / 4)
                let sun = dx * dx + dy * dy < Double(height * height) / 64
                let hill = Double(y) > Double(height) * 0.55 + 25 * sin(Double(x) / 40)
                let o = (y * width + x) * 3
                let (r, g, b): (Int, Int, Int)
                if sun {
                    (r, g, b) = (255, 220, 90)
                } else if hill {
                    (r, g, b) = (40 + x % 7 * 3, 120 + (y * 2) % 60, 50)
                } else if sky {
                    (r, g, b) = (90 + y / 3, 150 + y / 4, 235)
                } else {
                    (r, g, b) = (70, 110 + x % 40, 70)
                }
                bytes[o] = UInt8(min(255, r)); bytes[o + 1] = UInt8(min(255, g)); bytes[o + 2] = UInt8(min(255, b))
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }

    static func badge(side: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        let c = Double(side) / 2
        for y in 0..<side {
            for x in 0..<side {
                let d = ((Double(x) - c) * (Double(x) - c) + (Double(y) - c) * (Double(y) - c)).squareRoot()
                let o = (y * side + x) * 4
                let alpha = max(0, min(1, c - 2 - d))  // soft anti-aliased edge
                bytes[o] = UInt8(200 - x / 2); bytes[o + 1] = UInt8(60 + y / 2); bytes[o + 2] = 180
                bytes[o + 3] = UInt8(alpha * 255)
            }
        }
        return PixelBuffer(width: side, height: side, layout: .rgba8, bytes: bytes)
    }

    static func spinner(side: Int, step: Int, of steps: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        let c = Double(side) / 2
        let angle = Double(step) / Double(steps) * 2 * Double.pi
        for y in 0..<side {
            for x in 0..<side {
                let dx = Double(x) - c, dy = Double(y) - c
                let d = (dx * dx + dy * dy).squareRoot()
                guard d > c * 0.45 && d < c * 0.9 else { continue }
                var a = atan2(dy, dx) - angle
                while a < 0 { a += 2 * Double.pi }
                let o = (y * side + x) * 4
                bytes[o] = UInt8(40 + 200 * a / (2 * Double.pi)); bytes[o + 1] = 90; bytes[o + 2] = 220
                bytes[o + 3] = 255
            }
        }
        return PixelBuffer(width: side, height: side, layout: .rgba8, bytes: bytes)
    }
}
