import CGIF
import Foundation
import WebImageCore

/// A GIF parsed once into Swift values (palette indices per frame, never composed canvases), composing
/// frames on demand.
final class GIFFrameSource: AnimatedFrameSource {
    struct Frame {
        let x, y, width, height: Int
        /// RGB triplets of the frame's palette (local, else global).
        let palette: [UInt8]
        let transparentIndex: Int
        let disposal: Int
        let duration: TimeInterval
        /// One palette index per pixel of the frame rectangle, rows top to bottom (de-interlaced).
        let indices: [UInt8]
    }

    let canvasWidth: Int
    let canvasHeight: Int
    let loopCount: Int
    let frames: [Frame]
    var frameCount: Int { frames.count }

    init(data: Data, options: DecodeOptions) throws(ImageError) {
        let parsed = data.withUnsafeBytes { raw in
            GIFFrameSource.parse(raw.bindMemory(to: UInt8.self), options: options)
        }
        (canvasWidth, canvasHeight, loopCount, frames) = try parsed.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>,
                              options: DecodeOptions) -> Result<(Int, Int, Int, [Frame]), ImageError> {
        var error: Int32 = 0
        guard let gif = cgif_open_memory(bytes.baseAddress, bytes.count, &error) else {
            return .failure(.badImageData(reason: "GIF: \(describe(error))"))
        }
        defer { cgif_close(gif) }
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        // The logical screen is checked before giflib allocates any frame.
        do throws(ImageError) { try options.checkDimensions(width: width, height: height) } catch { return .failure(error) }
        let slurped = DGifSlurp(gif) == GIF_OK
        var count = Int(gif.pointee.ImageCount)
        if !slurped {
            // The last image was not read completely; the ones before it are whole.
            guard options.allowPartialImage, count > 1 else {
                return .failure(.badImageData(reason: "GIF: \(describe(gif.pointee.Error))"))
            }
            count -= 1
        }
        guard count > 0, let saved = gif.pointee.SavedImages else { return .failure(.badImageData(reason: "GIF: no frames")) }
        let global = palette(gif.pointee.SColorMap)
        var frames: [Frame] = []
        for index in 0..<count {
            let image = saved[index]
            let desc = image.ImageDesc
            let w = Int(desc.Width), h = Int(desc.Height)
            guard w > 0, h > 0, let raster = image.RasterBits else {
                return .failure(.badImageData(reason: "GIF: frame \(index) is empty"))
            }
            do throws(ImageError) { try options.checkDimensions(width: w, height: h) } catch { return .failure(error) }
            var control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
            if DGifSavedExtensionToGCB(gif, Int32(index), &control) != GIF_OK {
                control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
            }
            let local = palette(desc.ColorMap)
            guard let colors = local ?? global else { return .failure(.badImageData(reason: "GIF: frame \(index) has no palette")) }
            frames.append(Frame(x: Int(desc.Left), y: Int(desc.Top), width: w, height: h, palette: colors,
                                transparentIndex: Int(control.TransparentColor), disposal: Int(control.DisposalMode),
                                duration: control.DelayTime <= 1 ? 0.1 : Double(control.DelayTime) / 100,
                                indices: Array(UnsafeBufferPointer(start: raster, count: w * h))))
        }
        return .success((width, height, loopCount(saved, count: count), frames))
    }

    /// NETSCAPE2.0 (or ANIMEXTS1.0) loop count: 0 forever; absent means play once (1).
    private static func loopCount(_ saved: UnsafeMutablePointer<SavedImage>, count: Int) -> Int {
        for index in 0..<count {
            let image = saved[index]
            guard let blocks = image.ExtensionBlocks else { continue }
            let n = Int(image.ExtensionBlockCount)
            for b in 0..<n where blocks[b].Function == APPLICATION_EXT_FUNC_CODE && blocks[b].ByteCount == 11 {
                let name = String(decoding: UnsafeBufferPointer(start: blocks[b].Bytes, count: 11), as: UTF8.self)
                guard name == "NETSCAPE2.0" || name == "ANIMEXTS1.0", b + 1 < n, blocks[b + 1].ByteCount >= 3 else { continue }
                let sub = blocks[b + 1].Bytes!
                if sub[0] == 1 { return Int(sub[1]) | Int(sub[2]) << 8 }
            }
        }
        return 1
    }

    private static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?) -> [UInt8]? {
        guard let map, let colors = map.pointee.Colors else { return nil }
        var out: [UInt8] = []
        for i in 0..<Int(map.pointee.ColorCount) { out += [colors[i].Red, colors[i].Green, colors[i].Blue] }
        return out
    }

    private static func describe(_ error: Int32) -> String {
        GifErrorString(error).map { String(cString: $0) } ?? "error \(error)"
    }

    func duration(at index: Int) -> TimeInterval { frames[index].duration }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let frame = frames[index]
        let start = background ?? PixelBuffer(width: canvasWidth, height: canvasHeight, layout: .rgba8)
        var canvas = start
        // Clip the frame to the logical screen, as browsers do.
        let x0 = max(0, frame.x), y0 = max(0, frame.y)
        let x1 = min(canvasWidth, frame.x + frame.width), y1 = min(canvasHeight, frame.y + frame.height)
        let paletteCount = frame.palette.count / 3
        canvas.bytes.withUnsafeMutableBufferPointer { out in
            frame.indices.withUnsafeBufferPointer { indices in
                for y in stride(from: y0, to: y1, by: 1) {
                    let row = (y - frame.y) * frame.width
                    for x in stride(from: x0, to: x1, by: 1) {
                        let index = Int(indices[row + x - frame.x])
                        // Transparent pixels, and indices past the palette, leave the canvas as it is.
                        if index == frame.transparentIndex || index >= paletteCount { continue }
                        let o = (y * canvasWidth + x) * 4
                        out[o] = frame.palette[index * 3]
                        out[o + 1] = frame.palette[index * 3 + 1]
                        out[o + 2] = frame.palette[index * 3 + 2]
                        out[o + 3] = 255
                    }
                }
            }
        }
        switch frame.disposal {
        case 2:
            var next = canvas
            if x0 < x1 {
                for y in stride(from: y0, to: y1, by: 1) {
                    let a = (y * canvasWidth + x0) * 4, b = (y * canvasWidth + x1) * 4
                    next.bytes.replaceSubrange(a..<b, with: repeatElement(0, count: b - a))
                }
            }
            return ComposedFrame(frame: canvas, nextBackground: next)
        case 3:
            return ComposedFrame(frame: canvas, nextBackground: start)
        default:
            return ComposedFrame(frame: canvas, nextBackground: nil)
        }
    }
}
