import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Hand-edited files: pixel limits checked before decoding, frames outside the canvas, bad sizes.
@Suite("WebP hostile input")
struct WebPHostileInputTests {
    let coder = WebPCoder()

    /// An encoded 3-frame animation, as chunks, with the indices of its ANMF chunks.
    func animationChunks() throws -> (WebPChunkList, [Int]) {
        let data = try coder.encode(
            WebPTestImages.animation(frames: 3), as: .webp, options: EncodeOptions(lossless: true))
        let list = WebPChunkList(data)
        return (list, list.chunks.indices.filter { list.chunks[$0].fourcc == "ANMF" })
    }

    @Test func aHugeAnimatedCanvasIsRejectedBeforeAnyFrameIsDecoded() throws {
        var (list, _) = try animationChunks()
        let vp8x = list.chunks.firstIndex { $0.fourcc == "VP8X" }!
        // 16000 x 16000 claimed; the frames stay small, so only the limit can reject it quickly.
        list.chunks[vp8x].payload.replaceSubrange(
            4..<10, with: WebPChunkList.le(15999, count: 3) + WebPChunkList.le(15999, count: 3))
        #expect(throws: ImageError.imageTooLarge(width: 16000, height: 16000, limit: 1_000_000)) {
            try coder.decode(list.data, options: DecodeOptions(maxPixelCount: 1_000_000))
        }
    }

    @Test func thePixelLimitAppliesToIncrementalDecodingToo() throws {
        let data = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 40, height: 40, layout: .rgb8)), as: .webp,
            options: EncodeOptions(quality: 0.8))
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions(maxPixelCount: 1000))
        #expect(throws: ImageError.imageTooLarge(width: 40, height: 40, limit: 1000)) { try decoder.append(data) }
    }

    /// The ANMF header's own width and height fields are not checked here: libwebp's demuxer takes a
    /// frame's size from its bitstream, so only the offsets can push a frame off the canvas.
    @Test(arguments: [(x: 200, y: 0), (x: 0, y: 200), (x: 20, y: 14)])
    func aFrameOutsideTheCanvasIsATypedError(edit: (x: Int, y: Int)) throws {
        var (list, frames) = try animationChunks()
        // ANMF payload: X/2 (24 bits), Y/2, width-1, height-1, duration, flags.
        list.chunks[frames[1]].payload.replaceSubrange(
            0..<6,
            with: WebPChunkList.le(edit.x / 2, count: 3)
                + WebPChunkList.le(edit.y / 2, count: 3))
        #expect(throws: ImageError.self) { try coder.decode(list.data, options: DecodeOptions()) }
        #expect(throws: ImageError.self) { try coder.decode(list.data, options: DecodeOptions(preloadAllFrames: true)) }
    }

    @Test func badChunkAndRIFFSizesAreTypedErrors() throws {
        let (list, frames) = try animationChunks()
        var bytes = [UInt8](list.data)
        // The second ANMF chunk's size field, made to run past the end of the file.
        let offset = 12 + list.chunks[..<frames[1]].reduce(0) { $0 + 8 + $1.payload.count + ($1.payload.count & 1) }
        bytes.replaceSubrange(offset + 4..<offset + 8, with: WebPChunkList.le(0x7FFF_FFF0, count: 4))
        #expect(throws: ImageError.self) { try coder.decode(Data(bytes), options: DecodeOptions()) }
        var riff = [UInt8](list.data)
        riff.replaceSubrange(4..<8, with: WebPChunkList.le(3, count: 4))
        #expect(throws: ImageError.self) { try coder.decode(Data(riff), options: DecodeOptions()) }
        for length in stride(from: 0, to: list.data.count, by: 37) {
            #expect(throws: ImageError.self) { try coder.decode(list.data.prefix(length), options: DecodeOptions()) }
        }
    }
}
