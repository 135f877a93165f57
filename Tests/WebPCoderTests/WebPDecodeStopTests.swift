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
            try coder.encode(
                Image(pixels: WebPTestImages.noise(width: 300, height: 300, layout: .rgb8)), as: .webp,
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
        garbage.replaceSubrange(20..<25, with: [0x2f, 0, 0, 0, 0xe0])  // VP8L version 7
        #expect(reason(Data(garbage)).contains("bad header: bitstream error"))
        // A frame whose Huffman code is broken, as a still.
        let damaged = WebPChunkList(
            HostileFiles.manyFramesAnimatedWebP(frames: 1, canvas: PixelSize(8), damagedFrame: 0))
        let frame = try #require(damaged.chunks.first { $0.fourcc == "ANMF" })
        let still = WebPChunkList([
            WebPChunkList(Data(Array("RIFF\0\0\0\0WEBP".utf8) + frame.payload.dropFirst(16))).chunks[0]
        ])
        let message = reason(still.data)
        #expect(message.contains("bitstream error") && !message.contains("status"), "\(message)")
    }
}
