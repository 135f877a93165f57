import WebImageCore

/// Holds libwebp's Huffman table memory for a still WebP or one animation frame to
/// `VP8LHuffmanMemory/bound(width:height:)`, reading every lossless bitstream in it (VP8L, or ALPH with
/// lossless alpha) before libwebp does.
enum WebPTableMemoryCheck {
    enum Outcome: Equatable {
        /// libwebp may decode these bytes.
        case allowed
        /// The bytes end before the entropy image; libwebp cannot reach its table allocation with them
        /// either, so a caller with a complete file lets libwebp report the truncation.
        case needMoreData
    }

    /// Checks `bytes`: a file (from its RIFF header) or a frame's chunks (ALPH, VP8, VP8L), maybe cut
    /// short, of a `width` x `height` image. Throws `.decodeBudgetExceeded(.decoderMemory, ...)` over the
    /// bound and `.badImageData` for bits libwebp would reject too.
    static func check(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws(ImageError) -> Outcome {
        let bound = VP8LHuffmanMemory.bound(width: width, height: height)
        guard VP8LHuffmanMemory.worstCase(width: width, height: height) > bound else { return .allowed }
        var offset = bytes.starts(with: Array("RIFF".utf8)) ? riffHeaderSize : 0
        while offset + chunkHeaderSize <= bytes.count {
            let fourcc = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = (0..<4).reduce(0) { $0 | Int(bytes[offset + 4 + $1]) << (8 * $1) }
            let start = offset + chunkHeaderSize
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + size)])
            switch fourcc {
            case "VP8L":
                guard payload.count >= vp8lHeaderSize else { return .needMoreData }
                let stream = UnsafeRawBufferPointer(rebasing: payload[vp8lHeaderSize...])
                return try estimate(stream, width: width, height: height, bound: bound)
            case "ALPH":
                guard let flags = payload.first else { return .needMoreData }
                if flags & compressionMask == losslessAlpha {
                    let stream = UnsafeRawBufferPointer(rebasing: payload[1...])
                    if try estimate(stream, width: width, height: height, bound: bound) == .needMoreData {
                        return .needMoreData
                    }
                }
            case "VP8 ":
                return .allowed
            default:
                break
            }
            offset = start + size + (size & 1)
        }
        return .needMoreData
    }

    private static func estimate(
        _ stream: UnsafeRawBufferPointer, width: Int, height: Int,
        bound: Int
    ) throws(ImageError) -> Outcome {
        let bytes: Int
        do {
            bytes = try VP8LHuffmanMemory.estimate(stream: stream, width: width, height: height)
        } catch .needMoreData {
            return .needMoreData
        } catch {
            throw .badImageData(reason: "WebP: bitstream error in the lossless Huffman codes")
        }
        guard bytes <= bound else { throw .decodeBudgetExceeded(.decoderMemory, value: bytes, limit: bound) }
        return .allowed
    }

    /// "RIFF", size, "WEBP".
    private static let riffHeaderSize = 12
    /// A chunk's FourCC and size.
    private static let chunkHeaderSize = 8
    /// The VP8L chunk's signature byte and 32 bits of size, alpha and version.
    private static let vp8lHeaderSize = 5
    /// ALPH header bits 0-1: compression, 1 for lossless.
    private static let compressionMask: UInt8 = 0x03, losslessAlpha: UInt8 = 0x01
}
