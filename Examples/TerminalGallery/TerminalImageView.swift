import Foundation
import Synchronization
import WebImage

/// A "view" that shows images in a truecolor terminal: each character cell is two pixels tall, drawn
/// with the upper half block (foreground = top pixel, background = bottom pixel).
///
/// It is a ``WebImageTarget``: `setImage(with:)` from SwiftWebImage's view binding works on it as on any
/// widget, which is the point of this example.
final class TerminalImageView: WebImageTarget {
    let columns: Int
    /// Guards what the view shows now (the last image set), so a player can read it from another thread.
    private let shown = Mutex<Image?>(nil)
    private let output = Mutex(())

    init(columns: Int) { self.columns = columns }

    var image: Image? { shown.withLock { $0 } }

    func setImage(_ image: Image?) {
        shown.withLock { $0 = image }
        guard let image else { return }
        draw(image.pixels, caption: image.isAnimated ? "frame 1/\(image.frameCount)" : nil)
    }

    /// Prints `pixels` scaled to the view's width.
    func draw(_ pixels: PixelBuffer, caption: String? = nil) {
        let width = min(columns, pixels.width)
        let height = max(2, Int((Double(pixels.height) * Double(width) / Double(pixels.width)).rounded()))
        let scaled = ImageResampler.resample(pixels, width: width, height: height + height % 2)
        var text = ""
        for row in stride(from: 0, to: scaled.height, by: 2) {
            for x in 0..<scaled.width {
                let top = blend(scaled.rgba(x: x, y: row))
                let bottom = blend(scaled.rgba(x: x, y: row + 1))
                text += "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m▀"
            }
            text += "\u{1B}[0m\n"
        }
        if let caption { text += caption + "\n" }
        output.withLock { _ in FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    /// Composes a pixel over a dark checker-free background (terminals have no alpha).
    private func blend(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> (Int, Int, Int) {
        let a = Int(p.a), background = 24
        return (
            (Int(p.r) * a + background * (255 - a)) / 255, (Int(p.g) * a + background * (255 - a)) / 255,
            (Int(p.b) * a + background * (255 - a)) / 255
        )
    }

    /// Plays the shown animation `loops` times with its own frame durations.
    func play(loops: Int) throws {
        guard let image, let animation = image.animation else { return }
        for loop in 0..<loops {
            for index in 0..<animation.frameCount {
                let frame = try animation.frame(at: index)
                FileHandle.standardOutput.write(Data("\u{1B}[\(rowsFor(frame.pixels) + 1)A".utf8))
                draw(frame.pixels, caption: "frame \(index + 1)/\(animation.frameCount), loop \(loop + 1)/\(loops)")
                Thread.sleep(forTimeInterval: frame.duration / .seconds(1))  // playback timing, not synchronisation
            }
        }
    }

    private func rowsFor(_ pixels: PixelBuffer) -> Int {
        let width = min(columns, pixels.width)
        let height = max(2, Int((Double(pixels.height) * Double(width) / Double(pixels.width)).rounded()))
        return (height + height % 2) / 2
    }
}
