import Foundation
import WebImageCore

/// Hostile and damaged PNG and APNG files. Image data is deflated by ``FixedHuffmanDeflate`` (no zlib
/// here), and animations use a 1-bit palette, so thousands of large frames fit in a few hundred KB.
extension HostileFiles {
    /// The two palette colors of the generated animations: opaque red (index 0) and opaque blue (1).
    public static let apngPalette: [UInt8] = [255, 0, 0, 0, 0, 255]

    /// An APNG of `frames` frames that each cover the whole `canvas`, alternating red and blue (frame 0
    /// red), 100 ms each, looping forever. The default image is frame 0. About 60 bytes of chunk
    /// overhead plus a few dozen bytes of deflate data per frame, so 5,000 frames of 300x300 take about
    /// 400 KB, while decoding them all composes 5,000 canvases. A decoder must refuse it by its frame or
    /// total-pixel budget, or convert it holding a few canvases at a time.
    public static func manyFramesAPNG(frames: Int, canvas: PixelSize) -> Data {
        animatedPNG(frames: frames, canvas: canvas) { _ in nil }
    }

    /// Like ``manyFramesAPNG(frames:canvas:)``, but frame `damagedFrame` (after frame 0) has compressed
    /// data that is not deflate (a block of the reserved type 3) with correct chunk CRCs: the file parses,
    /// and only decoding that frame fails. Browsers show the frames before it; so must we.
    public static func damagedFrameAPNG(frames: Int, canvas: PixelSize, damagedFrame: Int) -> Data {
        precondition(damagedFrame > 0 && damagedFrame < frames, "frame 0 is the default image; damage a later one")
        return animatedPNG(frames: frames, canvas: canvas) { index in
            // zlib header, then a final block of BTYPE 11 (reserved): "invalid block type".
            index == damagedFrame ? [0x78, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00] : nil
        }
    }

    /// A still 8-bit RGB PNG of `size`, one color, whose deflate stream holds `extraRows` rows more than
    /// the image has. libpng warns "Extra compressed data in IDAT" after the last row; browsers show it.
    public static func pngWithExtraCompressedData(size: PixelSize, extraRows: Int = 4) -> Data {
        let raw = solidRows(width: size.width, height: size.height + extraRows)
        return stillPNG(size: size, chunksAfterImage: [], imageData: FixedHuffmanDeflate.zlib(raw, distances: [1, 3]))
    }

    /// A still PNG of `size` followed, after its image data and a `tEXt` chunk, by a second run of IDAT
    /// chunks (another whole zlib stream), then IEND, then an IDAT after IEND and trailing garbage bytes.
    /// libpng calls the late IDAT a benign error ("Too many IDATs found"); browsers show the image.
    public static func pngWithIDATAfterImageAndTrailingData(size: PixelSize) -> Data {
        let raw = solidRows(width: size.width, height: size.height)
        let stream = FixedHuffmanDeflate.zlib(raw, distances: [1, 3])
        let text = PNGChunk.make("tEXt", Array("Comment\u{0}late IDAT follows".utf8))
        var bytes = [UInt8](
            stillPNG(size: size, chunksAfterImage: text + PNGChunk.make("IDAT", stream), imageData: stream))
        bytes += PNGChunk.make("IDAT", stream) + Array("trailing garbage".utf8)
        return Data(bytes)
    }

    /// Rows of an 8-bit RGB image, each a filter byte (None) and `width` pixels of one color (a teal).
    private static func solidRows(width: Int, height: Int) -> [UInt8] {
        var row: [UInt8] = [0]
        for _ in 0..<width { row += [0, 128, 128] }
        var raw: [UInt8] = []
        raw.reserveCapacity(row.count * height)
        for _ in 0..<height { raw += row }
        return raw
    }

    /// An 8-bit RGB PNG: IHDR, one IDAT with `imageData`, `chunksAfterImage` (whole chunks), IEND.
    private static func stillPNG(size: PixelSize, chunksAfterImage: [UInt8], imageData: [UInt8]) -> Data {
        let header = PNGChunk.bigEndian(UInt32(size.width)) + PNGChunk.bigEndian(UInt32(size.height)) + [8, 2, 0, 0, 0]
        return Data(
            PNGChunk.signature + PNGChunk.make("IHDR", header) + PNGChunk.make("IDAT", imageData)
                + chunksAfterImage + PNGChunk.make("IEND", []))
    }

    /// An APNG of full-canvas 1-bit palette frames alternating between palette indexes 0 and 1; `override`
    /// may give a frame's compressed data instead (nil: the real data).
    private static func animatedPNG(frames: Int, canvas: PixelSize, override: (Int) -> [UInt8]?) -> Data {
        precondition(frames > 0 && canvas.width > 0 && canvas.height > 0, "an animation needs frames and a canvas")
        let rowBytes = (canvas.width + 7) / 8
        // The two frames' compressed data, made once: each row is a filter byte (None) and the index bits.
        let streams = [UInt8(0x00), UInt8(0xFF)].map { fill -> [UInt8] in
            let row = [0] + [UInt8](repeating: fill, count: rowBytes)
            let raw = (0..<canvas.height).flatMap { _ in row }
            return FixedHuffmanDeflate.zlib(raw, distances: [1, row.count])
        }
        var bytes = PNGChunk.signature
        bytes += PNGChunk.make(
            "IHDR",
            PNGChunk.bigEndian(UInt32(canvas.width)) + PNGChunk.bigEndian(UInt32(canvas.height))
                + [1, 3, 0, 0, 0])  // 1-bit palette
        bytes += PNGChunk.make("acTL", PNGChunk.bigEndian(UInt32(frames)) + PNGChunk.bigEndian(0))
        bytes += PNGChunk.make("PLTE", apngPalette)
        var sequence: UInt32 = 0
        for index in 0..<frames {
            let control =
                PNGChunk.bigEndian(sequence) + PNGChunk.bigEndian(UInt32(canvas.width))
                + PNGChunk.bigEndian(UInt32(canvas.height)) + PNGChunk.bigEndian(0) + PNGChunk.bigEndian(0)
                + [0, 10, 0, 100, 0, 0]  // 10/100 s, dispose none, blend source
            bytes += PNGChunk.make("fcTL", control)
            sequence += 1
            let data = override(index) ?? streams[index % 2]
            if index == 0 {
                bytes += PNGChunk.make("IDAT", data)
            } else {
                bytes += PNGChunk.make("fdAT", PNGChunk.bigEndian(sequence) + data)
                sequence += 1
            }
        }
        bytes += PNGChunk.make("IEND", [])
        return Data(bytes)
    }
}
