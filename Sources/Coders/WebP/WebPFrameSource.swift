internal import CWebP
import Foundation
import WebImageCore

/// The frames of an animated WebP, composed on demand: each frame's bitstream is decoded when asked
/// for and blended onto the canvas the previous frame left, with WebP's blend and dispose rules.
final class WebPFrameSource: AnimatedFrameSource {
    struct Frame {
        let x, y, width, height: Int
        let duration: Duration
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
    /// Per frame: whether it is composed without looking at earlier frames (see ``keyFrames(_:canvasWidth:canvasHeight:)``).
    let keyFrames: [Bool]
    var frameCount: Int { frames.count }

    /// The options frames are decoded with: each composed frame starts its own watch from them.
    let options: DecodeOptions

    /// Reads the container's frame list (no frame is decoded) and checks the animation's budgets: the
    /// frame count, then the work of every frame, the canvas plus the frame's own rectangle, before any
    /// frame bitstream is copied. With `firstFrameOnly` only frame 0 is read.
    init(data: Data, options: DecodeOptions) throws(ImageError) {
        let parsed: Result<(Int, Int, Int, [Frame]), ImageError> = data.withUnsafeBytes { raw in
            var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            guard let demux = WebPDemux(&webp) else {
                return .failure(.badImageData(reason: "WebP: malformed container"))
            }
            defer { WebPDemuxDelete(demux) }
            let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            do throws(ImageError) {
                try options.checkDimensions(width: width, height: height)
                try options.checkFrameCount(Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT)))
                try options.checkAnimationWork(
                    canvasWidth: width, canvasHeight: height,
                    frameSizes: Self.frameSizes(demux))
            } catch { return .failure(error) }
            var frames: [Frame] = []
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else {
                return .failure(.badImageData(reason: "WebP: no frames"))
            }
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                let frame = Frame(
                    x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width),
                    height: Int(iterator.height),
                    // Browsers play very short frame durations as 100 ms, as for GIF.
                    duration: iterator.duration <= 10 ? .milliseconds(100) : .milliseconds(Int(iterator.duration)),
                    blend: iterator.blend_method == WEBP_MUX_BLEND,
                    disposeToBackground: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND,
                    hasAlpha: iterator.has_alpha != 0,
                    bitstream: Data(bytes: iterator.fragment.bytes, count: iterator.fragment.size))
                guard frame.width > 0, frame.height > 0, frame.x + frame.width <= width,
                    frame.y + frame.height <= height
                else {
                    return .failure(.badImageData(reason: "WebP: frame outside the canvas"))
                }
                frames.append(frame)
            } while !options.firstFrameOnly && WebPDemuxNextFrame(&iterator) != 0
            return .success((width, height, loops, frames))
        }
        let (width, height, loops, frames) = try parsed.get()
        canvasWidth = width
        canvasHeight = height
        loopCount = loops
        self.frames = frames
        self.options = options
        keyFrames = Self.keyFrames(frames, canvasWidth: width, canvasHeight: height)
    }

    /// Each frame's rectangle as the demuxer reads it from the frame's bitstream header (called after
    /// the frame count was checked, so the list is bounded).
    private static func frameSizes(_ demux: OpaquePointer) -> [PixelSize] {
        var sizes: [PixelSize] = []
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else { return sizes }
        defer { WebPDemuxReleaseIterator(&iterator) }
        repeat {
            sizes.append(PixelSize(width: Int(iterator.width), height: Int(iterator.height)))
        } while WebPDemuxNextFrame(&iterator) != 0
        return sizes
    }

    func duration(at index: Int) -> Duration { frames[index].duration }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let frame = frames[index]
        // Each frame is one unit of work with its own watch; damaged bits throw `.badImageData`, which
        // ends the animation at the frame before (Core's rule), while budget, time and cancellation
        // errors reach the caller.
        let size = PixelSize(width: frame.width, height: frame.height)
        let pixels = try WebPStillDecoder.decode(
            frame.bitstream, layout: .rgba8, size: size, source: size,
            watch: options.startWatch())
        var canvas: PixelBuffer
        if keyFrames[index] || background == nil {
            // A key frame does not depend on earlier frames: it is drawn, unblended, on a clear canvas.
            canvas = PixelBuffer(width: canvasWidth, height: canvasHeight, layout: .rgba8)
            WebPCompositing.draw(pixels, onto: &canvas, x: frame.x, y: frame.y, blend: false)
        } else {
            canvas = background!
            // Where the previous frame was disposed the canvas is known to be clear, so, as libwebp
            // does, the new pixels are copied there rather than blended.
            let previous = frames[index - 1]
            let cleared =
                previous.disposeToBackground
                ? (x: previous.x, y: previous.y, width: previous.width, height: previous.height) : nil
            WebPCompositing.draw(pixels, onto: &canvas, x: frame.x, y: frame.y, blend: frame.blend, except: cleared)
        }
        guard frame.disposeToBackground else { return ComposedFrame(frame: canvas, nextBackground: nil) }
        // Dispose to background: the frame's rectangle becomes transparent for the next frame.
        var next = canvas
        WebPCompositing.clear(&next, x: frame.x, y: frame.y, width: frame.width, height: frame.height)
        return ComposedFrame(frame: canvas, nextBackground: next)
    }

    /// Which frames are key frames, by libwebp's rule (`IsKeyFrame` in `anim_decode.c`): the first
    /// frame; a frame that covers the canvas and replaces it (no alpha, or no blending); a frame after
    /// one disposed to background that covered the canvas or was itself a key frame.
    static func keyFrames(_ frames: [Frame], canvasWidth: Int, canvasHeight: Int) -> [Bool] {
        func coversCanvas(_ frame: Frame) -> Bool { frame.width == canvasWidth && frame.height == canvasHeight }
        var result: [Bool] = []
        for (index, frame) in frames.enumerated() {
            if index == 0 {
                result.append(true)
            } else if (!frame.hasAlpha || !frame.blend) && coversCanvas(frame) {
                result.append(true)
            } else {
                let previous = frames[index - 1]
                result.append(previous.disposeToBackground && (coversCanvas(previous) || result[index - 1]))
            }
        }
        return result
    }
}
