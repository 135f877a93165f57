import Foundation
import WebImageCore

/// A GIF's frames, composed on demand. Holds the file's bytes and its `GIFFileIndex` (a few
/// dozen bytes per frame) and nothing else: each call decompresses one frame straight onto a canvas,
/// so the memory an animation holds does not grow with its frame count.
///
/// Composition follows browsers: the canvas (the logical screen grown to hold frame 0) starts
/// transparent, pixels outside it are clipped, disposal 2 clears the frame's rectangle to transparent and 3 restores the canvas
/// from before the frame.
///
/// Each composition runs under a `DecodeWatch`: the one of the decode call that composes it (see
/// ``whileDecoding(_:_:)``), else one started for that frame, checked per group of rows.
///
/// Sendable because every stored property is an immutable value or behind a lock; each call opens
/// its own giflib reader, so calls need no other lock.
final class GIFFrameSource: AnimatedFrameSource {
    let data: Data
    let index: GIFFileIndex
    /// Carries the time limit and cancellation of later, lazy compositions.
    let options: DecodeOptions
    /// Guards the watch of the decode call composing frames right now (nil outside decode calls).
    private let callWatch = Locked<DecodeWatch?>(nil)

    var canvasWidth: Int { index.canvasWidth }
    var canvasHeight: Int { index.canvasHeight }
    var loopCount: Int { index.loopCount }
    var frameCount: Int { index.frames.count }

    /// Reads the structure of `data` (see `GIFFileIndex`) under `watch`; decompresses no frame.
    init(data: Data, options: DecodeOptions, watch: DecodeWatch) throws(ImageError) {
        self.data = data
        self.options = options
        // Data's closures rethrow untyped errors; a Result carries the typed one through.
        index = try data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try GIFFileIndex(bytes, options: options, watch: watch) }
        }.get()
    }

    func duration(at index: Int) -> Duration { self.index.frames[index].duration }

    /// Runs `body` (part of one decode call, e.g. composing its poster or preloading every frame) with
    /// `watch` as the watch of every composition, so the call's time limit covers all of them.
    func whileDecoding<T>(_ watch: DecodeWatch, _ body: () throws(ImageError) -> T) throws(ImageError) -> T {
        callWatch.withLock { $0 = watch }
        defer { callWatch.withLock { $0 = nil } }
        return try body()
    }

    func composeFrame(at number: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let frame = index.frames[number]
        let watch = callWatch.withLock { $0 } ?? options.startWatch()
        try watch.check()
        let width = canvasWidth, height = canvasHeight
        // Frame 0 starts on a blank canvas of its own (no copy); later frames copy the background on
        // first write, since the caller keeps it.
        let blank = { PixelBuffer(width: width, height: height, layout: .rgba8) }
        var canvas = background ?? blank()
        // The part of the frame inside the canvas.
        let x0 = max(0, frame.x), x1 = min(width, frame.x + frame.width)
        let y0 = max(0, frame.y), y1 = min(height, frame.y + frame.height)
        try canvas.bytes.withUnsafeMutableBytes { out in
            let pixels = out.baseAddress!
            return data.withUnsafeBytes { file in
                Result { () throws(ImageError) in
                    var table: [UInt32] = []
                    try GIFFrameReader.read(
                        frame, number: number, of: file, headerSize: index.headerSize,
                        watch: watch, colors: { table = $0.entries },
                        row: { y, indices in
                            let canvasY = frame.y + y
                            guard canvasY >= y0, canvasY < y1, x0 < x1 else { return }
                            table.withUnsafeBufferPointer { colors in
                                GIFFrameSource.drawRow(
                                    indices + (x0 - frame.x), count: x1 - x0, colors: colors.baseAddress!,
                                    into: pixels + (canvasY * width + x0) * 4)
                            }
                        })
                }
            }
        }.get()
        switch frame.disposal {
        case 2 where x0 < x1 && y0 < y1:
            var next = canvas
            next.bytes.withUnsafeMutableBytes { out in
                for y in y0..<y1 {
                    (out.baseAddress! + (y * width + x0) * 4).initializeMemory(
                        as: UInt8.self, repeating: 0,
                        count: (x1 - x0) * 4)
                }
            }
            return ComposedFrame(frame: canvas, nextBackground: next)
        case 3:
            return ComposedFrame(frame: canvas, nextBackground: background ?? blank())
        default:
            return ComposedFrame(frame: canvas, nextBackground: nil)
        }
    }

    /// Draws `count` pixels: each index's color where it is not 0 (transparent), leaving the canvas
    /// elsewhere. The hot loop of GIF decoding, hence raw pointers.
    @inline(__always)
    private static func drawRow(
        _ indices: UnsafePointer<UInt8>, count: Int, colors: UnsafePointer<UInt32>,
        into row: UnsafeMutableRawPointer
    ) {
        for x in 0..<count {
            let color = colors[Int(indices[x])]
            if color != 0 { row.storeBytes(of: color, toByteOffset: x * 4, as: UInt32.self) }
        }
    }
}
