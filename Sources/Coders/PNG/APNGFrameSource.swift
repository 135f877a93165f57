import Foundation
import WebImageCore

/// The frames of an APNG, composed on demand. Holds only the parsed ``APNGContainer`` (the file's
/// bytes and ranges into them); frame `i` is decoded when it is asked for, by handing libpng a small
/// PNG made of the file's IHDR (with the frame's size), its `PLTE`/`tRNS`, and the frame's data as
/// `IDAT`, then drawn onto the canvas with the frame's blend and dispose operations.
struct APNGFrameSource: AnimatedFrameSource {
    let container: APNGContainer
    /// Each frame's decode: the pixel limit (frames never exceed the canvas, which was checked), the time
    /// limit of one frame's composition and the cancellation token of the decode that made this source.
    let frameOptions: DecodeOptions

    init(container: APNGContainer, options: DecodeOptions) {
        self.container = container
        frameOptions = DecodeOptions(
            applyOrientation: false, maxPixelCount: options.maxPixelCount,
            timeLimit: options.timeLimit, cancellation: options.cancellation)
    }

    var canvasWidth: Int { container.canvasWidth }
    var canvasHeight: Int { container.canvasHeight }
    var frameCount: Int { container.frames.count }
    var loopCount: Int { container.playCount }

    func duration(at index: Int) -> Duration { container.frames[index].control.duration }

    /// Frame `index` drawn onto `background`. Throws `.badImageData` for a damaged frame (bad deflate data
    /// or a bad `fdAT` CRC), which ends the animation before it; `.cancelled` or a time budget error when
    /// the decode is stopped (checked before the frame and between its rows).
    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        try frameOptions.startWatch().check()
        let control = container.frames[index].control
        let pixels = try decodeFrame(at: index)
        let before = background ?? PixelBuffer(width: canvasWidth, height: canvasHeight, layout: .rgba8)
        var canvas = before
        APNGCanvas.draw(pixels, onto: &canvas, x: control.x, y: control.y, blend: control.blend)
        switch control.dispose {
        case .none:
            return ComposedFrame(frame: canvas, nextBackground: nil)
        case .previous where index > 0:
            return ComposedFrame(frame: canvas, nextBackground: before)
        case .background, .previous:
            // The spec treats "previous" on the first frame as "background": there is nothing earlier.
            var next = canvas
            APNGCanvas.clear(&next, x: control.x, y: control.y, width: control.width, height: control.height)
            return ComposedFrame(frame: canvas, nextBackground: next)
        }
    }

    /// Frame `index`'s own pixels (its rectangle, not the canvas) as RGBA8.
    func decodeFrame(at index: Int) throws(ImageError) -> PixelBuffer {
        let frame = container.frames[index]
        guard !frame.hasBadCRC else {
            throw .badImageData(reason: "APNG: frame \(index) has an fdAT chunk with a bad CRC")
        }
        let bytes = container.bytes
        var stream = PNGChunkStream.signature
        var header: [UInt8] = []
        PNGChunkStream.append(UInt32(frame.control.width), to: &header)
        PNGChunkStream.append(UInt32(frame.control.height), to: &header)
        header += container.headerTail
        PNGChunkStream.appendChunk("IHDR", header[...], to: &stream)
        for chunk in container.sharedChunks { stream += bytes[chunk] }
        for data in frame.data { PNGChunkStream.appendChunk("IDAT", bytes[data], to: &stream) }
        PNGChunkStream.appendChunk("IEND", [], to: &stream)

        let decoder = PNGIncrementalDecoder(options: frameOptions)
        // The whole frame is here: decode it straight into the array it is returned in (one copy).
        let pixels = try decoder.decodeComplete(Data(stream)).pixels
        guard pixels.width == frame.control.width, pixels.height == frame.control.height else {
            throw .badImageData(reason: "APNG: frame \(index) decoded to the wrong size")
        }
        return pixels.converted(to: .rgba8)
    }
}
