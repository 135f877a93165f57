import CWebP
import Foundation
import WebImageCore

/// The frames of an animated WebP, composed on demand: each frame's bitstream is decoded when asked
/// for and blended onto the canvas the previous frame left, with WebP's blend and dispose rules.
final class WebPFrameSource: AnimatedFrameSource {
    struct Frame {
        let x, y, width, height: Int
        let duration: TimeInterval
        let blend: Bool
        let disposeToBackground: Bool
        let hasAlpha: Bool
        /// The frame's own bitstream (ALPH + VP8/VP8L), copied out of the container.
        let bitstream: Data
    }

    let canvasWidth: Int
    let canvasHeight: Int
    let loopCount: Int
    let frames: [Frame]
    var frameCount: Int { frames.count }

    init(data: Data, options: DecodeOptions) throws(ImageError) {
        let parsed: Result<(Int, Int, Int, [Frame]), ImageError> = data.withUnsafeBytes { raw in
            var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            guard let demux = WebPDemux(&webp) else { return .failure(.badImageData(reason: "WebP: malformed container")) }
            defer { WebPDemuxDelete(demux) }
            let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            do throws(ImageError) { try options.checkDimensions(width: width, height: height) } catch { return .failure(error) }
            let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            var frames: [Frame] = []
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else { return .failure(.badImageData(reason: "WebP: no frames")) }
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                let frame = Frame(x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width),
                                  height: Int(iterator.height),
                                  // Browsers play very short frame durations as 100 ms, as for GIF.
                                  duration: iterator.duration <= 10 ? 0.1 : Double(iterator.duration) / 1000,
                                  blend: iterator.blend_method == WEBP_MUX_BLEND,
                                  disposeToBackground: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND,
                                  hasAlpha: iterator.has_alpha != 0,
                                  bitstream: Data(bytes: iterator.fragment.bytes, count: iterator.fragment.size))
                guard frame.width > 0, frame.height > 0, frame.x + frame.width <= width, frame.y + frame.height <= height else {
                    return .failure(.badImageData(reason: "WebP: frame outside the canvas"))
                }
                frames.append(frame)
            } while WebPDemuxNextFrame(&iterator) != 0
            return .success((width, height, loops, frames))
        }
        let (width, height, loops, frames) = try parsed.get()
        canvasWidth = width
        canvasHeight = height
        loopCount = loops
        self.frames = frames
    }

    func duration(at index: Int) -> TimeInterval { frames[index].duration }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let frame = frames[index]
        var canvas = background ?? PixelBuffer(width: canvasWidth, height: canvasHeight, layout: .rgba8)
        let pixels = try WebPStillDecoder.decode(frame.bitstream, layout: .rgba8, width: frame.width,
                                                 height: frame.height, scaled: false)
        let before = frame.disposeToBackground ? canvas : nil
        Compositing.draw(pixels, onto: &canvas, x: frame.x, y: frame.y, blend: frame.blend)
        guard frame.disposeToBackground, var next = before else { return ComposedFrame(frame: canvas, nextBackground: nil) }
        // Dispose to background: the frame's rectangle becomes transparent for the next frame.
        next = canvas
        Compositing.clear(&next, x: frame.x, y: frame.y, width: frame.width, height: frame.height)
        return ComposedFrame(frame: canvas, nextBackground: next)
    }
}

/// Drawing RGBA rectangles onto RGBA canvases.
enum Compositing {
    /// Draws `source` at (`x`, `y`); with `blend`, alpha-composites over the canvas ("source over"),
    /// else replaces the pixels.
    static func draw(_ source: PixelBuffer, onto canvas: inout PixelBuffer, x: Int, y: Int, blend: Bool) {
        let width = min(source.width, canvas.width - x), height = min(source.height, canvas.height - y)
        guard width > 0, height > 0 else { return }
        for row in 0..<height {
            for column in 0..<width {
                let s = row * source.bytesPerRow + column * 4
                let d = (y + row) * canvas.bytesPerRow + (x + column) * 4
                let sa = Int(source.bytes[s + 3])
                if !blend || sa == 255 {
                    canvas.bytes[d] = source.bytes[s]; canvas.bytes[d + 1] = source.bytes[s + 1]
                    canvas.bytes[d + 2] = source.bytes[s + 2]; canvas.bytes[d + 3] = source.bytes[s + 3]
                } else if sa > 0 {
                    let da = Int(canvas.bytes[d + 3])
                    let outA = sa + da * (255 - sa) / 255
                    for c in 0..<3 {
                        let value = (Int(source.bytes[s + c]) * sa + Int(canvas.bytes[d + c]) * da * (255 - sa) / 255) / max(1, outA)
                        canvas.bytes[d + c] = UInt8(min(255, value))
                    }
                    canvas.bytes[d + 3] = UInt8(outA)
                }
            }
        }
    }

    /// Makes a rectangle transparent.
    static func clear(_ canvas: inout PixelBuffer, x: Int, y: Int, width: Int, height: Int) {
        for row in max(0, y)..<min(canvas.height, y + height) {
            let start = row * canvas.bytesPerRow + max(0, x) * 4
            let end = row * canvas.bytesPerRow + min(canvas.width, x + width) * 4
            if start < end { canvas.bytes.replaceSubrange(start..<end, with: repeatElement(0, count: end - start)) }
        }
    }
}
