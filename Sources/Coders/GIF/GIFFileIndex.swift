internal import CGIF
import Foundation
import WebImageCore

/// Where one frame lives in a GIF file and how it is drawn: everything but its pixels.
struct GIFFrameInfo: Sendable {
    /// The frame rectangle on the logical screen (it may reach past the screen; composition clips it).
    let x, y, width, height: Int
    /// Offset of the frame's image separator (0x2C) in the file; its pixels are decoded from there.
    let descriptorOffset: Int
    /// The palette index drawn as "leave the canvas as it is", or -1.
    let transparentIndex: Int
    /// GIF disposal method: 2 clears the rectangle, 3 restores the canvas from before the frame,
    /// anything else keeps the canvas.
    let disposal: Int
    /// Display time in seconds, clamped as browsers do.
    let duration: Duration

    /// The frame's rectangle as stored, before any clipping: the pixels its data decompresses to.
    var storedSize: PixelSize { PixelSize(width: width, height: height) }

    /// A frame of zero width or height: it still shows for its delay, but draws nothing. Chromium's
    /// decoder (Wuffs with its "reject empty frame" quirk off) accepts such frames the same way.
    var isEmpty: Bool { width == 0 || height == 0 }
}

/// A GIF's structure, read in one pass over the file without decompressing any frame (giflib steps
/// over each frame's sub-blocks without LZW decoding): the logical screen, the loop count and each
/// frame's ``GIFFrameInfo``. About 60 bytes per frame, so an animation costs memory per frame only
/// when its frames are composed.
///
/// Budgets are checked here, before any pixel is decoded: each frame's stored rectangle against the
/// pixel limit, the frame count as frames are found (so a file of endless tiny frames stops at the
/// limit), and the work of the whole animation (every frame composed onto the canvas plus its stored
/// rectangle decompressed). With `firstFrameOnly` the walk stops after frame 0, which alone is counted.
///
/// Lenient where browsers are (see `GIFFileIndex/init(_:options:watch:)`), strict where it protects
/// us: budgets, and data cut short without `allowPartialImage`.
struct GIFFileIndex: Sendable {
    /// Browsers play delays of 0 and 1 centiseconds as 10 (100 ms): such files were made for the
    /// slow players of the 1990s and look broken played as fast as possible.
    static let minimumDelay = 2, clampedDuration: Duration = .milliseconds(100)

    /// The canvas: the logical screen, grown to hold frame 0 (see the initializer).
    let canvasWidth, canvasHeight: Int
    /// NETSCAPE2.0 (or ANIMEXTS1.0) loop count: 0 forever; without the extension 1 (play once).
    let loopCount: Int
    /// Bytes of the header, logical screen descriptor and global color table: what giflib reads
    /// before any frame.
    let headerSize: Int
    let frames: [GIFFrameInfo]

    /// Reads the structure of `bytes`, checking `watch` once per frame.
    ///
    /// Browser leniency, after Chromium (Wuffs as Skia's SkWuffsCodec drives it, and Blink's older
    /// GIFImageReader) and Firefox's nsGIFDecoder2:
    /// - A logical screen smaller than frame 0, including a 0x0 one, grows to hold frame 0 (the union
    ///   of the screen and frame 0's rectangle), as Chromium does; later frames are clipped to that
    ///   canvas. (Firefox also takes frame 0's size but moves the frame to the origin; both agree for
    ///   the usual case of a frame at 0,0.)
    /// - A byte that starts no known record after at least one frame ends the file there, keeping the
    ///   frames before it (Firefox and the older Blink decoder take it for the trailer; Wuffs reports
    ///   an error there, and Skia keeps the frames before it). Before any frame it is an error.
    /// - A frame without any color table decodes, drawn in opaque black as Chromium does (see
    ///   ``GIFColorTable``).
    /// - A frame of zero width or height draws nothing (``GIFFrameInfo/isEmpty``).
    /// - Data that ends where a record should start, after a complete frame, is only a missing trailer.
    ///
    /// A file cut short inside a record keeps its complete frames with `options.allowPartialImage`
    /// (else `.badImageData`); budget, time and cancellation errors are always thrown.
    init(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, watch: DecodeWatch) throws(ImageError) {
        var error: Int32 = 0
        guard let gif = cgif_open_memory(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &error)
        else { throw .badImageData(reason: "GIF: \(GIFFileIndex.describe(error))") }
        defer { cgif_close(gif) }
        let screenWidth = Int(gif.pointee.SWidth), screenHeight = Int(gif.pointee.SHeight)
        // A screen with pixels is checked now, before any frame; a 0x0 one takes frame 0's size.
        if screenWidth > 0 && screenHeight > 0 {
            try options.checkDimensions(width: screenWidth, height: screenHeight)
        }
        headerSize = cgif_offset(gif)
        var scan = Scan(options: options, watch: watch)
        do throws(ImageError) {
            try scan.run(gif)
        } catch .badImageData(let reason) {
            // Data that ends early keeps the frames read so far, when the caller accepts that.
            guard cgif_hit_end(gif) != 0, options.allowPartialImage, !scan.frames.isEmpty else {
                throw .badImageData(reason: reason)
            }
        }
        guard let first = scan.frames.first else { throw .badImageData(reason: "GIF: no frames") }
        canvasWidth = first.isEmpty ? screenWidth : max(screenWidth, first.x + first.width)
        canvasHeight = first.isEmpty ? screenHeight : max(screenHeight, first.y + first.height)
        // Also refuses a canvas left empty (a 0x0 screen whose frame 0 is empty).
        try options.checkDimensions(width: canvasWidth, height: canvasHeight)
        try options.checkAnimationWork(
            canvasWidth: canvasWidth, canvasHeight: canvasHeight,
            frameSizes: scan.frames.lazy.map(\.storedSize))
        frames = scan.frames
        loopCount = scan.loopCount ?? 1
    }

    /// The record-by-record walk; `frames` holds every frame read completely.
    private struct Scan {
        let options: DecodeOptions
        let watch: DecodeWatch
        var frames: [GIFFrameInfo] = []
        var loopCount: Int?
        /// The graphic control extension seen since the last frame; it applies to the next one.
        var control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)

        init(options: DecodeOptions, watch: DecodeWatch) {
            self.options = options
            self.watch = watch
        }

        mutating func run(_ gif: UnsafeMutablePointer<GifFileType>) throws(ImageError) {
            while true {
                try watch.check()
                var type = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &type) == GIF_OK else {
                    // The data ended where a record should start: after a complete frame that is only a
                    // missing trailer, which browsers forgive.
                    if cgif_hit_end(gif) != 0, !frames.isEmpty { return }
                    // A byte that starts no record: after good frames, browsers stop there and keep them.
                    if gif.pointee.Error == D_GIF_ERR_WRONG_RECORD, !frames.isEmpty { return }
                    throw failure(gif)
                }
                switch type {
                case IMAGE_DESC_RECORD_TYPE:
                    try readFrame(gif)
                    // Only frame 0 is shown: the rest of the file is not even walked.
                    if options.firstFrameOnly { return }
                    // Stop walking a file of endless frames at the limit, not at its end.
                    try options.checkFrameCount(frames.count)
                case EXTENSION_RECORD_TYPE: try readExtension(gif)
                case TERMINATE_RECORD_TYPE: return
                default: throw failure(gif)
                }
            }
        }

        private mutating func readFrame(_ gif: UnsafeMutablePointer<GifFileType>) throws(ImageError) {
            let descriptorOffset = cgif_offset(gif) - 1
            guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(gif) }
            let image = gif.pointee.Image
            let width = Int(image.Width), height = Int(image.Height)
            // The frame's own rectangle: its decompressed pixels, whether or not the screen clips them.
            // An empty one is a frame that draws nothing (see `isEmpty`).
            if width > 0 && height > 0 {
                try options.checkDimensions(width: width, height: height)
            }
            // Step over the compressed data block by block without decompressing it.
            var codeSize: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>? = nil
            guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw failure(gif) }
            while block != nil {
                guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw failure(gif) }
            }
            let delay = Int(control.DelayTime)
            frames.append(
                GIFFrameInfo(
                    x: Int(image.Left), y: Int(image.Top), width: width, height: height,
                    descriptorOffset: descriptorOffset, transparentIndex: Int(control.TransparentColor),
                    disposal: Int(control.DisposalMode),
                    duration: delay < GIFFileIndex.minimumDelay
                        ? GIFFileIndex.clampedDuration : .milliseconds(delay * 10)))
            control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
        }

        private mutating func readExtension(_ gif: UnsafeMutablePointer<GifFileType>) throws(ImageError) {
            var code: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>? = nil
            guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(gif) }
            // giflib hands each sub-block as its length byte followed by its bytes.
            var isLoopExtension = false
            if let first = block {
                let length = Int(first[0])
                if code == GRAPHICS_EXT_FUNC_CODE, length >= 4 {
                    DGifExtensionToGCB(length, first + 1, &control)
                } else if code == APPLICATION_EXT_FUNC_CODE, length == 11 {
                    let name = String(decoding: UnsafeBufferPointer(start: first + 1, count: 11), as: UTF8.self)
                    isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
                }
            }
            while block != nil {
                guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(gif) }
                if isLoopExtension, let sub = block, sub[0] >= 3, sub[1] == 1, loopCount == nil {
                    loopCount = Int(sub[2]) | Int(sub[3]) << 8
                }
            }
        }

        private func failure(_ gif: UnsafeMutablePointer<GifFileType>) -> ImageError {
            let what = cgif_hit_end(gif) != 0 ? "data ends early" : GIFFileIndex.describe(gif.pointee.Error)
            return .badImageData(reason: "GIF: \(what) (after \(frames.count) complete frames)")
        }
    }

    static func describe(_ error: Int32) -> String {
        GifErrorString(error).map { String(cString: $0) } ?? "error \(error)"
    }
}
