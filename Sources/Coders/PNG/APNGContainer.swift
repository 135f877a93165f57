import Foundation
import WebImageCore

/// An APNG file's structure: canvas, loop count, and for each animation frame its `fcTL` values and
/// where its compressed data lies. Holds the file's bytes and ranges into them, never pixels.
///
/// Parsing checks everything a frame's decode will rely on: chunk CRCs (libpng never sees the
/// original `fdAT` chunks, so it cannot), the shared `fcTL`/`fdAT` sequence numbers (0, 1, 2, ...),
/// `acTL` before the first `IDAT`, frames inside the canvas, every frame having data, and the frame
/// count matching `acTL`.
struct APNGContainer: Sendable {
    /// One animation frame.
    struct Frame: Sendable {
        let control: APNGFrameControl
        /// The frame's compressed image data: `IDAT` data, or `fdAT` data after its sequence number.
        var data: [Range<Int>]
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

    private enum Phase { case beforeImage, inImage, afterImage }

    /// Chunks whose CRC must match: the critical ones, and APNG's own, which become frame data.
    private static let checkedChunkTypes: Set<String> = ["acTL", "fcTL", "fdAT", "tRNS"]

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
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                    | Int(bytes[offset + 3])
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                if type == "acTL" { return true }
                if type == "IDAT" || type == "IEND" || length > PNGChunkStream.maxChunkLength { return false }
                offset += PNGChunkStream.overhead + length
            }
            return nil
        }
    }

    /// Parses `bytes`; nil when they are a PNG without animation (no `acTL` before `IDAT`), which the
    /// still PNG decoder handles. The canvas is checked against `options`' pixel limit as soon as IHDR
    /// is read; a truncated file fails unless `options.allowPartialImage` (then the whole frames before
    /// the cut are kept).
    static func parse(_ bytes: [UInt8], options: DecodeOptions) throws(ImageError) -> APNGContainer? {
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(PNGChunkStream.signature) else {
            throw .badImageData(reason: "PNG: no PNG signature")
        }
        var offset = 8
        var header: (width: Int, height: Int, tail: ArraySlice<UInt8>)?
        var animation: (frameCount: Int, playCount: Int)?
        var frames: [Frame] = []
        var sharedChunks: [Range<Int>] = []
        var nextSequence: UInt32 = 0
        var phase = Phase.beforeImage
        var defaultImageIsFirstFrame = false
        /// Whether the frame being read takes `fdAT` chunks (it began with an `fcTL` after `IDAT`).
        var frameTakesFDAT = false
        var ended = false

        reading: while true {
            let chunk: PNGChunkLocation
            switch PNGChunkStream.chunk(in: bytes, at: offset) {
            case .end: break reading
            case .malformed(let reason): throw .badImageData(reason: "PNG: \(reason)")
            case .chunk(let found): chunk = found
            }
            offset = chunk.data.upperBound + 4
            if !chunk.crcMatches && (chunk.isCritical || checkedChunkTypes.contains(chunk.type)) {
                throw .badImageData(reason: "PNG: \(chunk.type) chunk has a bad CRC")
            }
            guard let canvas = header else {
                header = try readHeader(bytes, chunk, options: options)
                continue
            }
            if phase == .inImage && chunk.type != "IDAT" { phase = .afterImage }

            switch chunk.type {
            case "acTL":
                // An acTL after the image data is not APNG; still-image decoders ignore it, and so do we.
                guard phase == .beforeImage else { continue }
                guard animation == nil else { throw .badImageData(reason: "APNG: more than one acTL") }
                guard chunk.data.count == 8 else { throw .badImageData(reason: "APNG: acTL is not 8 bytes") }
                let frameCount = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound))
                let playCount = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound + 4))
                guard frameCount > 0 else { throw .badImageData(reason: "APNG: acTL announces no frames") }
                animation = (frameCount, playCount)
            case "fcTL":
                guard let animation else { throw .badImageData(reason: "APNG: fcTL before acTL") }
                let control = try APNGFrameControl(bytes, range: chunk.data, canvasWidth: canvas.width,
                                                   canvasHeight: canvas.height)
                try checkSequence(control.sequenceNumber, expected: &nextSequence)
                guard frames.count < animation.frameCount else {
                    throw .badImageData(reason: "APNG: more fcTL chunks than the \(animation.frameCount) frames acTL announces")
                }
                if phase == .beforeImage {
                    guard frames.isEmpty else { throw .badImageData(reason: "APNG: two fcTL chunks before IDAT") }
                    guard control.x == 0, control.y == 0, control.width == canvas.width, control.height == canvas.height else {
                        throw .badImageData(reason: "APNG: the default image's frame does not cover the canvas")
                    }
                    defaultImageIsFirstFrame = true
                } else {
                    if let last = frames.last, last.data.isEmpty {
                        throw .badImageData(reason: "APNG: frame \(frames.count - 1) has no image data (missing fdAT)")
                    }
                    frameTakesFDAT = true
                }
                frames.append(Frame(control: control, data: []))
            case "IDAT":
                switch phase {
                case .beforeImage:
                    guard animation != nil else { return nil }
                    phase = .inImage
                case .inImage: break
                case .afterImage: throw .badImageData(reason: "APNG: IDAT chunks are not consecutive")
                }
                if defaultImageIsFirstFrame { frames[0].data.append(chunk.data) }
            case "fdAT":
                guard phase != .beforeImage, frameTakesFDAT, !frames.isEmpty else {
                    throw .badImageData(reason: "APNG: fdAT without a frame control after IDAT")
                }
                guard chunk.data.count >= 4 else { throw .badImageData(reason: "APNG: fdAT has no sequence number") }
                try checkSequence(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound), expected: &nextSequence)
                frames[frames.count - 1].data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
            case "PLTE", "tRNS":
                if phase == .beforeImage { sharedChunks.append(chunk.start..<(chunk.data.upperBound + 4)) }
            case "IEND":
                ended = true
                break reading
            case "IHDR":
                throw .badImageData(reason: "PNG: a second IHDR")
            default:
                if chunk.isCritical { throw .badImageData(reason: "PNG: unknown critical chunk \(chunk.type)") }
            }
        }

        guard let canvas = header else { throw .badImageData(reason: "PNG: no IHDR (truncated or not a PNG)") }
        guard let animation else { return nil }
        guard phase != .beforeImage else { throw .badImageData(reason: "APNG: no IDAT (truncated or malformed)") }
        if ended {
            if let last = frames.last, last.data.isEmpty {
                throw .badImageData(reason: "APNG: frame \(frames.count - 1) has no image data (missing fdAT)")
            }
            guard frames.count == animation.frameCount else {
                throw .badImageData(reason: "APNG: acTL announces \(animation.frameCount) frames, the file has \(frames.count)")
            }
        } else {
            guard options.allowPartialImage else {
                throw .badImageData(reason: "APNG: the data ended before IEND (truncated file)")
            }
            // The last frame's data may be cut short; every frame before it is whole.
            if !frames.isEmpty { frames.removeLast() }
            guard !frames.isEmpty else { throw .badImageData(reason: "APNG: the data ended before the first whole frame") }
        }
        return APNGContainer(bytes: bytes, canvasWidth: canvas.width, canvasHeight: canvas.height,
                             headerTail: canvas.tail, playCount: animation.playCount, frames: frames,
                             sharedChunks: sharedChunks, defaultImageIsFirstFrame: defaultImageIsFirstFrame,
                             isTruncated: !ended)
    }

    /// Reads IHDR (which must come first) and checks the canvas against the pixel limit.
    private static func readHeader(_ bytes: [UInt8], _ chunk: PNGChunkLocation,
                                   options: DecodeOptions) throws(ImageError) -> (width: Int, height: Int, tail: ArraySlice<UInt8>) {
        guard chunk.type == "IHDR", chunk.data.count == 13 else { throw .badImageData(reason: "PNG: the first chunk is not IHDR") }
        let width = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound))
        let height = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound + 4))
        guard width <= PNGChunkStream.maxChunkLength, height <= PNGChunkStream.maxChunkLength else {
            throw .badImageData(reason: "PNG: IHDR size \(width)x\(height) is over the PNG limit")
        }
        try options.checkDimensions(width: width, height: height)
        return (width, height, bytes[(chunk.data.lowerBound + 8)..<chunk.data.upperBound])
    }

    private static func checkSequence(_ number: UInt32, expected: inout UInt32) throws(ImageError) {
        guard number == expected else {
            throw .badImageData(reason: "APNG: sequence number \(number) where \(expected) was expected")
        }
        expected &+= 1
    }
}
