import Foundation
import WebImageCore

/// Writes animated images as APNG: each frame is encoded as a PNG by ``PNGCoder`` (libpng), then its
/// `IDAT` data is moved into the animation: as `IDAT` for frame 0 (the default image, which still-only
/// decoders show) and as numbered `fdAT` chunks for the others. Every frame covers the whole canvas
/// with `APNG_DISPOSE_OP_NONE` and `APNG_BLEND_OP_SOURCE`, so decoding gives back the exact pixels.
///
/// Frames stream from `AnimatedFrames/forEachFrame(_:)`: each is composed, compressed and appended to
/// the output before the next one is composed, so converting an animation holds a few canvases plus the
/// output, never all frames. An animation that ends early at a damaged frame is written with the frames
/// before it (`acTL` is patched with the count actually written).
enum APNGEncoder {
    /// Frame delays are written in milliseconds (`delay_den` 1000); `delay_num` is 16 bits.
    private static let delayDenominator: UInt16 = 1000

    /// A libpng-encoded PNG taken apart into the chunks the animation reuses.
    private struct EncodedFrame {
        let bytes: [UInt8]
        let header: Range<Int>
        /// Whole ancillary chunks before the image data (`sRGB`, `gAMA`, ...), kept from frame 0 only.
        let ancillary: [Range<Int>]
        let imageData: [Range<Int>]
    }

    /// The APNG being written, one frame at a time.
    private struct Writer {
        var output = PNGChunkStream.signature
        /// Where the `acTL` chunk starts, to patch its frame count once every frame is written.
        var animationControlOffset = 0
        /// IHDR's data, which every frame's libpng output must repeat.
        var header: [UInt8] = []
        var canvasWidth = 0, canvasHeight = 0
        var sequence: UInt32 = 0
        var framesWritten = 0

        mutating func write(_ frame: EncodedFrame, duration: Duration, loopCount: Int) throws(ImageError) {
            if framesWritten == 0 {
                header = Array(frame.bytes[frame.header])
                // The canvas is what libpng wrote (smaller than the image when `maxPixelSize` shrank it).
                canvasWidth = Int(PNGChunkStream.readUInt32(header, at: 0))
                canvasHeight = Int(PNGChunkStream.readUInt32(header, at: 4))
                PNGChunkStream.appendChunk("IHDR", header[...], to: &output)
                animationControlOffset = output.count
                var animationControl: [UInt8] = []
                PNGChunkStream.append(UInt32(0), to: &animationControl)  // the frame count, patched at the end
                PNGChunkStream.append(UInt32(clamping: loopCount), to: &animationControl)
                PNGChunkStream.appendChunk("acTL", animationControl[...], to: &output)
                for chunk in frame.ancillary { output += frame.bytes[chunk] }
            } else if !frame.bytes[frame.header].elementsEqual(header) {
                throw .badImageData(reason: "APNG encode: libpng wrote frames of different sizes or formats")
            }
            let control = APNGFrameControl(
                sequenceNumber: sequence, width: canvasWidth, height: canvasHeight, x: 0, y: 0,
                delayNumerator: APNGEncoder.delayNumerator(for: duration),
                delayDenominator: APNGEncoder.delayDenominator, dispose: .none, blend: .source)
            sequence += 1
            PNGChunkStream.appendChunk("fcTL", control.bytes[...], to: &output)
            for data in frame.imageData {
                if framesWritten == 0 {
                    PNGChunkStream.appendChunk("IDAT", frame.bytes[data], to: &output)
                } else {
                    var payload: [UInt8] = []
                    payload.reserveCapacity(data.count + 4)
                    PNGChunkStream.append(sequence, to: &payload)
                    payload += frame.bytes[data]
                    sequence += 1
                    PNGChunkStream.appendChunk("fdAT", payload[...], to: &output)
                }
            }
            framesWritten += 1
        }

        /// Writes the real frame count into `acTL` (and its CRC) and ends the file.
        mutating func finish() -> Data {
            var count: [UInt8] = []
            PNGChunkStream.append(UInt32(framesWritten), to: &count)
            let data = animationControlOffset + 8
            output.replaceSubrange(data..<(data + 4), with: count)
            var crc: [UInt8] = []
            PNGChunkStream.append(CRC32.checksum(output[(animationControlOffset + 4)..<(data + 8)]), to: &crc)
            output.replaceSubrange((data + 8)..<(data + 12), with: crc)
            PNGChunkStream.appendChunk("IEND", [], to: &output)
            return Data(output)
        }
    }

    static func encode(_ image: Image, options: EncodeOptions) throws(ImageError) -> Data {
        guard let animation = image.animation, !options.firstFrameOnly, image.frameCount > 1 else {
            return try PNGCoder().encode(image.firstFrameOnly, as: .png, options: options)
        }
        let layout = try sharedLayout(of: animation)
        var writer = Writer()
        try animation.forEachFrame { (frame) throws(ImageError) in
            guard frame.pixels.width == image.width, frame.pixels.height == image.height else {
                throw .badImageData(
                    reason: "APNG encode: every frame must have the canvas size \(image.width)x\(image.height)")
            }
            let png = try PNGCoder().encode(
                Image(pixels: frame.pixels.converted(to: layout)), as: .png, options: options)
            try writer.write(try split([UInt8](png)), duration: frame.duration, loopCount: image.loopCount)
        }
        return writer.finish()
    }

    /// The layout every frame is written in (they share IHDR): the richest layout of frames held in
    /// memory, RGBA for frames decoded on demand (composing them all just to look would double the work).
    private static func sharedLayout(of animation: AnimatedFrames) throws(ImageError) -> PixelLayout {
        guard animation.isFullyLoaded else { return .rgba8 }
        var layouts: Set<PixelLayout> = []
        try animation.forEachFrame { (frame) throws(ImageError) in layouts.insert(frame.pixels.layout) }
        return layouts.contains(.rgba8) ? .rgba8 : layouts.contains(.rgb8) ? .rgb8 : .gray8
    }

    /// `duration` in milliseconds, within `delay_num`'s 16 bits.
    private static func delayNumerator(for duration: Duration) -> UInt16 {
        let milliseconds = (duration / .milliseconds(1)).rounded()
        guard milliseconds.isFinite, milliseconds > 0 else { return 0 }
        return UInt16(min(milliseconds, Double(UInt16.max)))
    }

    private static func split(_ bytes: [UInt8]) throws(ImageError) -> EncodedFrame {
        var offset = PNGChunkStream.signature.count
        var header: Range<Int>?
        var ancillary: [Range<Int>] = []
        var imageData: [Range<Int>] = []
        while case .chunk(let chunk) = PNGChunkStream.chunk(in: bytes, at: offset, verifyCRC: false) {
            offset = chunk.data.upperBound + 4
            switch chunk.type {
            case "IHDR": header = chunk.data
            case "IDAT": imageData.append(chunk.data)
            case "IEND": break
            default:
                if imageData.isEmpty && !chunk.isCritical {
                    ancillary.append(chunk.start..<(chunk.data.upperBound + 4))
                }
            }
        }
        guard let header, header.count == 13, !imageData.isEmpty else {
            throw .badImageData(reason: "APNG encode: libpng's output has no IHDR or IDAT")
        }
        return EncodedFrame(bytes: bytes, header: header, ancillary: ancillary, imageData: imageData)
    }
}
