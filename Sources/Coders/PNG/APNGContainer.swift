import Foundation
import WebImageCore

/// An APNG file's structure: canvas, loop count, and for each animation frame its `fcTL` values and
/// where its compressed data lies. Holds the file's bytes and ranges into them, never pixels.
///
/// Parsing checks everything a frame's decode will rely on: chunk CRCs (libpng never sees the
/// original `fdAT` chunks, so it cannot), the shared `fcTL`/`fdAT` sequence numbers (0, 1, 2, ...),
/// `acTL` before the first `IDAT`, frames inside the canvas, every frame having data, and the frame
/// count matching `acTL`. A file that breaks one of these animation rules is not an animation: it is
/// shown as its default image (`IDAT`), as the APNG specification asks. The frame count and the work of
/// all frames are checked against the decode budgets as the `fcTL` chunks are read, before any frame
/// is decoded.
struct APNGContainer: Sendable {
    /// One animation frame.
    struct Frame: Sendable {
        let control: APNGFrameControl
        /// The frame's compressed image data: `IDAT` data, or `fdAT` data after its sequence number.
        var data: [Range<Int>]
        /// An `fdAT` chunk of this frame failed its CRC: the frame is damaged (decoding it throws
        /// `.badImageData`), which ends the animation before it.
        var hasBadCRC = false
    }

    /// The whole file.
    let bytes: [UInt8]
    let canvasWidth: Int
    let canvasHeight: Int
    /// IHDR after width and height: bit depth, color type, compression, filter and interlace method,
    /// which every frame shares.
    let headerTail: ArraySlice<UInt8>
    /// `num_plays`: 0 means forever.
    let playCount: Int
    let frames: [Frame]
    /// Whole chunks (`PLTE`, `tRNS`) that every frame's stream repeats before its data. Color-space
    /// chunks (`gAMA`, `iCCP`, ...) are left out: the PNG decoder does not apply them.
    let sharedChunks: [Range<Int>]
    /// Whether the default image (`IDAT`) is frame 0; false when `IDAT` comes before the first `fcTL`
    /// (a fallback for still-only decoders, which the animation skips).
    let defaultImageIsFirstFrame: Bool
    /// The file ended before `IEND`; only the frames before the one it cut are kept.
    let isTruncated: Bool

    /// Chunks parsed (CRCs checked) between two checks of the decode's deadline and cancellation: a few
    /// milliseconds of work for chunks of typical size.
    private static let chunksPerStopCheck = 1024

    /// Whether `data` is a PNG with an `acTL` chunk before its first `IDAT`: the test for an APNG.
    /// Reads only chunk headers (no CRCs), so it is cheap enough for sniffing.
    static func hasAnimationControl(_ data: Data) -> Bool { sniffAnimation(data) == true }

    /// Like ``hasAnimationControl(_:)`` for the first bytes of a download: nil while the bytes end
    /// before either `acTL` or `IDAT` shows up.
    static func sniffAnimation(_ data: Data) -> Bool? {
        data.withUnsafeBytes { raw -> Bool? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let signature = PNGChunkStream.signature
            guard bytes.prefix(8).elementsEqual(signature.prefix(bytes.count)) else { return false }
            var offset = 8
            while bytes.count - offset >= 8 {
                let length =
                    Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                    | Int(bytes[offset + 3])
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                if type == "acTL" { return true }
                if type == "IDAT" || type == "IEND" || length > PNGChunkStream.maxChunkLength { return false }
                offset += PNGChunkStream.overhead + length
            }
            return nil
        }
    }

    /// Parses `bytes`; nil when they are a PNG without animation (no `acTL` before `IDAT`) or whose
    /// animation chunks are broken, which the still PNG decoder handles. The canvas is checked against
    /// `options`' pixel limit as soon as IHDR is read, the frame and work budgets as `acTL` and each
    /// `fcTL` are read, and the deadline and cancellation every ``chunksPerStopCheck`` chunks; a truncated
    /// file fails unless `options.allowPartialImage` (then the whole frames before the cut are kept).
    static func parse(_ bytes: [UInt8], options: DecodeOptions) throws(ImageError) -> APNGContainer? {
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(PNGChunkStream.signature) else {
            throw .badImageData(reason: "PNG: no PNG signature")
        }
        var parser = APNGParser(bytes: bytes, options: options)
        var offset = PNGChunkStream.signature.count
        let watch = options.startWatch()
        var chunksRead = 0
        while true {
            chunksRead += 1
            if chunksRead % chunksPerStopCheck == 0 { try watch.check() }
            switch PNGChunkStream.chunk(in: bytes, at: offset) {
            case .end:
                return try parser.finish(ended: false)
            case .malformed(let reason):
                throw .badImageData(reason: "PNG: \(reason)")
            case .chunk(let chunk):
                offset = chunk.data.upperBound + 4
                switch try parser.read(chunk) {
                case .keepReading: continue
                case .ended: return try parser.finish(ended: true)
                case .notAnimated: return nil
                case .invalid(let reason): throw .badImageData(reason: reason)
                }
            }
        }
    }
}
