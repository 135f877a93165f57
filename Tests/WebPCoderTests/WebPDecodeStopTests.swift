import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Deadlines and cancellation stop WebP decodes with typed errors, and libwebp's failures are named in words.
@Suite("WebP deadlines, cancellation and errors")
struct WebPDecodeStopTests {
    let coder = WebPCoder()

    func cancelled() -> DecodeOptions {
        let token = DecodeCancellation()
        token.cancel()
        return DecodeOptions(cancellation: token)
    }

    func isTimeBudget(_ body: () throws -> Void) -> Bool {
        do { try body() } catch ImageError.decodeBudgetExceeded(.time, _, _) { return true } catch { return false }
        return false
    }

    var still: Data {
        get throws {
            try coder.encode(Image(pixels: WebPTestImages.noise(width: 300, height: 300, layout: .rgb8)), as: .webp,
                             options: EncodeOptions(lossless: true))
        }
    }

    @Test func aCancelledStillDecodeStops() throws {
        let data = try still
        #expect(throws: ImageError.cancelled) { try coder.decode(data, options: cancelled()) }
        let decoder = coder.makeIncrementalDecoder(options: cancelled())
        #expect(throws: ImageError.cancelled) { try decoder.append(data) }
    }

    @Test func aDecodePastItsTimeLimitStops() throws {
        let data = try still
        #expect(isTimeBudget { _ = try coder.decode(data, options: DecodeOptions(timeLimit: .zero)) })
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions(timeLimit: .zero))
        #expect(isTimeBudget { try decoder.append(data) })
    }

    @Test func aDecodeInsideACancelledTaskStops() async throws {
        let data = try still
        let coder = self.coder
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return Result { () throws(ImageError) in try coder.decode(data, options: DecodeOptions()) }
        }
        let result = await task.value
        #expect(throws: ImageError.cancelled) { try result.get() }
    }

    @Test func lazyFramesCheckTheirOwnWatch() throws {
        let token = DecodeCancellation()
        let data = HostileFiles.manyFramesAnimatedWebP(frames: 3, canvas: PixelSize(16))
        let image = try coder.decode(data, options: DecodeOptions(cancellation: token))
        _ = try image.frame(at: 0)
        token.cancel()
        #expect(throws: ImageError.cancelled) { try image.frame(at: 1) }
        // Cancellation is not damage: the animation keeps its frames.
        #expect(image.frameCount == 3)
    }

    @Test func libwebpsStatusIsNamedInWords() throws {
        let data = try still
        func reason(_ bytes: Data) -> String {
            do { _ = try coder.decode(bytes, options: DecodeOptions()) } catch { return error.description }
            return "decoded"
        }
        #expect(reason(data.prefix(data.count / 2)).contains("not enough data"))
        var garbage = [UInt8](data.prefix(64))
        garbage.replaceSubrange(20..<25, with: [0x2f, 0, 0, 0, 0xe0]) // VP8L version 7
        #expect(reason(Data(garbage)).contains("bad header: bitstream error"))
        // A frame whose Huffman code is broken, as a still.
        let damaged = WebPChunkList(HostileFiles.manyFramesAnimatedWebP(frames: 1, canvas: PixelSize(8), damagedFrame: 0))
        let frame = try #require(damaged.chunks.first { $0.fourcc == "ANMF" })
        let still = WebPChunkList([WebPChunkList(Data(Array("RIFF\0\0\0\0WEBP".utf8) + frame.payload.dropFirst(16))).chunks[0]])
        let message = reason(still.data)
        #expect(message.contains("bitstream error") && !message.contains("status"), "\(message)")
    }
}

/// A damaged later frame ends the animation at the frame before it, lazily and eagerly alike.
@Suite("WebP damaged frames")
struct WebPDamagedFrameTests {
    let coder = WebPCoder()
    let data = HostileFiles.manyFramesAnimatedWebP(frames: 4, canvas: PixelSize(8), damagedFrame: 2)

    @Test func theDecodeSucceedsAndStopsAtTheLastGoodFrame() throws {
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.frameCount == 4)
        let last = try image.frame(at: 3)
        #expect(image.frameCount == 2)
        #expect(last.pixels == (try image.frame(at: 1).pixels))
    }

    @Test func preloadingKeepsTheSameFrames() throws {
        let lazy = try coder.decode(data, options: DecodeOptions())
        let eager = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(eager.frameCount == 2)
        for index in 0..<2 { #expect(try eager.frame(at: index).pixels == lazy.frame(at: index).pixels) }
    }

    @Test func convertingTheAnimationWritesTheGoodFrames() throws {
        let image = try coder.decode(data, options: DecodeOptions())
        let encoded = try coder.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        #expect(try coder.decode(encoded, options: DecodeOptions()).frameCount == 2)
    }

    @Test func aDamagedFirstFrameFailsTheDecode() {
        let first = HostileFiles.manyFramesAnimatedWebP(frames: 2, canvas: PixelSize(8), damagedFrame: 0)
        #expect(throws: ImageError.self) { try coder.decode(first, options: DecodeOptions(firstFrameOnly: true)) }
        #expect(throws: ImageError.self) { try coder.decode(first, options: DecodeOptions(preloadAllFrames: true)) }
    }
}

/// Animations are encoded from the lazy source one frame at a time.
@Suite("WebP streaming animation encoder")
struct WebPStreamingEncoderTests {
    let coder = WebPCoder()

    @Test func convertingAnAnimationHoldsAFewCanvases() throws {
        let frames = 300, side = 200
        let image = try coder.decode(HostileFiles.manyFramesAnimatedWebP(frames: frames, canvas: PixelSize(side)),
                                     options: DecodeOptions())
        let encoded = try coder.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        let animation = try #require(image.animation)
        #expect(!animation.isFullyLoaded)
        #expect(animation.cachedByteCount <= 3 * side * side * 4)
        let back = try coder.decode(encoded, options: DecodeOptions())
        #expect(back.frameCount == frames)
        #expect(try back.frame(at: 299).pixels == image.frame(at: 299).pixels)
    }
}
