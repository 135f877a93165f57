import Foundation
import WebImageCore

/// Writes animated images as APNG: each frame is encoded as a PNG by ``PNGCoder`` (libpng), then its
/// `IDAT` data is moved into the animation: as `IDAT` for frame 0 (the default image, which still-only
/// decoders show) and as numbered `fdAT` chunks for the others. Every frame covers the whole canvas
/// with `APNG_DISPOSE_OP_NONE` and `APNG_BLEND_OP_SOURCE`, so decoding gives back the exact pixels.
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

    static func encode(_ image: Image, options: EncodeOptions) throws(ImageError) -> Data {
        let count = options.firstFrameOnly ? 1 : image.frameCount
        guard count > 1 else { return try PNGCoder().encode(image.firstFrameOnly, as: .png, options: options) }
        var frames: [ImageFrame] = []
        for index in 0..<count {
            do { frames.append(try image.frame(at: index)) } catch { throw .badImageData(reason: "\(error)") }
        }
        guard frames.allSatisfy({ $0.pixels.width == image.width && $0.pixels.height == image.height }) else {
            throw .badImageData(reason: "APNG encode: every frame must have the canvas size \(image.width)x\(image.height)")
        }
        // All frames share IHDR, so they share the richest layout any of them has.
        let layout: PixelLayout = frames.contains { $0.pixels.layout == .rgba8 } ? .rgba8
            : frames.contains { $0.pixels.layout == .rgb8 } ? .rgb8 : .gray8
        var encoded: [EncodedFrame] = []
        for frame in frames {
            let png = try PNGCoder().encode(Image(pixels: frame.pixels.converted(to: layout)), as: .png, options: options)
            encoded.append(try split([UInt8](png)))
        }
        let first = encoded[0]
        // The canvas is what libpng wrote (smaller than the image when `maxPixelSize` shrank it).
        let header = first.bytes[first.header]
        guard encoded.allSatisfy({ $0.bytes[$0.header] == header }) else {
            throw .badImageData(reason: "APNG encode: libpng wrote frames of different sizes or formats")
        }
        let canvasWidth = Int(PNGChunkStream.readUInt32(first.bytes, at: first.header.lowerBound))
        let canvasHeight = Int(PNGChunkStream.readUInt32(first.bytes, at: first.header.lowerBound + 4))

        var output = PNGChunkStream.signature
        PNGChunkStream.appendChunk("IHDR", header, to: &output)
        var animationControl: [UInt8] = []
        PNGChunkStream.append(UInt32(frames.count), to: &animationControl)
        PNGChunkStream.append(UInt32(clamping: image.loopCount), to: &animationControl)
        PNGChunkStream.appendChunk("acTL", animationControl[...], to: &output)
        for chunk in first.ancillary { output += first.bytes[chunk] }

        var sequence: UInt32 = 0
        for (index, frame) in encoded.enumerated() {
            let control = APNGFrameControl(sequenceNumber: sequence, width: canvasWidth, height: canvasHeight, x: 0, y: 0,
                                           delayNumerator: delayNumerator(for: frames[index].duration),
                                           delayDenominator: delayDenominator, dispose: .none, blend: .source)
            sequence += 1
            PNGChunkStream.appendChunk("fcTL", control.bytes[...], to: &output)
            for data in frame.imageData {
                if index == 0 {
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
        }
        PNGChunkStream.appendChunk("IEND", [], to: &output)
        return Data(output)
    }

    /// `duration` in milliseconds, within `delay_num`'s 16 bits.
    private static func delayNumerator(for duration: TimeInterval) -> UInt16 {
        let milliseconds = (duration * 1000).rounded()
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
                if imageData.isEmpty && !chunk.isCritical { ancillary.append(chunk.start..<(chunk.data.upperBound + 4)) }
            }
        }
        guard let header, header.count == 13, !imageData.isEmpty else {
            throw .badImageData(reason: "APNG encode: libpng's output has no IHDR or IDAT")
        }
        return EncodedFrame(bytes: bytes, header: header, ancillary: ancillary, imageData: imageData)
    }
}
