internal import CGIF
import WebImageCore

/// A frame's colors as the canvas stores them: 256 RGBA8 pixels packed in `UInt32`s (memory order
/// R, G, B, A). Indices that are transparent or past the end of the frame's color table are 0, so a
/// pixel is drawn exactly when its entry is not 0 (every drawn entry has alpha 255).
///
/// A frame with neither a local nor a global color table draws every index but the transparent one as
/// opaque black, as Chromium does: its GIF decoder is Wuffs, driven by Skia's SkWuffsCodec with
/// Wuffs's default of an implicit all-opaque-black palette (the "reject empty palette" quirk off).
/// (Firefox draws such frames from an all-zero, transparent table; the older Blink decoder skipped
/// their rows.)
struct GIFColorTable {
    /// Opaque black as stored: R, G, B 0, A 255.
    private static let opaqueBlack = UInt32(0xFF00_0000).littleEndian

    private(set) var entries = [UInt32](repeating: 0, count: 256)

    init(_ map: ColorMapObject?, transparentIndex: Int) {
        guard let map else {
            for index in 0..<256 where index != transparentIndex { entries[index] = Self.opaqueBlack }
            return
        }
        let count = min(256, Int(map.ColorCount))
        for index in 0..<count where index != transparentIndex {
            let color = map.Colors[index]
            let rgba = UInt32(color.Red) | UInt32(color.Green) << 8 | UInt32(color.Blue) << 16 | 0xFF00_0000
            entries[index] = rgba.littleEndian
        }
    }
}

/// Decompresses one frame of a GIF on demand with giflib, a row at a time, without reading the
/// frames before it: giflib is shown the file's header and global color table, then the frame.
enum GIFFrameReader {
    /// The order interlaced rows are stored in: four passes, each a start row and a step.
    private static let interlacePasses: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    /// Pixels decompressed between two looks at the decode's deadline and cancellation: about a
    /// millisecond of LZW decoding, so a stop is noticed quickly while the clock costs nothing
    /// measurable. Checked per group of rows (a row of a frame wider than this is a group by itself).
    static let pixelsPerWatchCheck = 1 << 16

    /// Decodes frame `number` (described by `frame`) of the GIF in `file`. Calls `colors` once with the
    /// frame's color table, then `row` once per row with the row's number inside the frame (rows
    /// arrive in file order, so interlaced frames arrive out of order) and its palette indices, valid
    /// only during the call. Throws `.badImageData` when the compressed data is malformed, and what
    /// `watch` throws (checked per group of rows) when the decode is cancelled or out of time.
    static func read(
        _ frame: GIFFrameInfo, number: Int, of file: UnsafeRawBufferPointer, headerSize: Int,
        watch: DecodeWatch, colors: (GIFColorTable) -> Void,
        row: (Int, UnsafePointer<UInt8>) -> Void
    ) throws(ImageError) {
        var error: Int32 = 0
        // Owned here: opened and closed in this scope; `file` outlives both.
        guard
            let gif = cgif_open_frame(
                file.baseAddress?.assumingMemoryBound(to: UInt8.self), file.count,
                headerSize, frame.descriptorOffset, &error)
        else { throw .badImageData(reason: "GIF: frame \(number): \(GIFFileIndex.describe(error))") }
        defer { cgif_close(gif) }
        var type = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(gif, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE, DGifGetImageDesc(gif) == GIF_OK,
            Int(gif.pointee.Image.Width) == frame.width, Int(gif.pointee.Image.Height) == frame.height
        else { throw failure(gif, frame: number) }
        let map = gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap
        colors(GIFColorTable(map?.pointee, transparentIndex: frame.transparentIndex))
        // An empty frame has no rows to decode; what data it carries is ignored.
        if frame.isEmpty { return }
        let interlaced = gif.pointee.Image.Interlace
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: frame.width)
        defer { scratch.deallocate() }
        var pass = 0, y = 0
        var pixelsSinceCheck = 0
        for _ in 0..<frame.height {
            pixelsSinceCheck += frame.width
            if pixelsSinceCheck >= pixelsPerWatchCheck {
                try watch.check()
                pixelsSinceCheck = 0
            }
            guard DGifGetLine(gif, scratch, Int32(frame.width)) == GIF_OK else { throw failure(gif, frame: number) }
            if !interlaced {
                row(y, scratch)
                y += 1
                continue
            }
            // The passes' rows cover 0..<height exactly once, so `y` is in range here.
            while y >= frame.height {
                pass += 1
                y = interlacePasses[pass].start
            }
            row(y, scratch)
            y += interlacePasses[pass].step
        }
    }

    private static func failure(_ gif: UnsafeMutablePointer<GifFileType>, frame: Int) -> ImageError {
        .badImageData(reason: "GIF: frame \(frame): \(GIFFileIndex.describe(gif.pointee.Error))")
    }
}
