import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageWebPCoder

/// The decode budgets on WebP: frame count and total work of animations, read from the container before
/// any frame is decoded; libwebp's Huffman table memory for lossless data.
@Suite("WebP decode budgets")
struct WebPBudgetTests {
    let coder = WebPCoder()

    /// The budget a decode ran out of, or nil when it failed otherwise or did not fail.
    func exceededBudget(_ body: () throws -> Void) -> (budget: DecodeBudget, value: Int, limit: Int)? {
        do { try body() } catch ImageError.decodeBudgetExceeded(let budget, let value, let limit) {
            return (budget, value, limit)
        } catch { return nil }
        return nil
    }

    @Test func tenThousandFramesAreRefusedByTheFrameCount() {
        let data = HostileFiles.manyFramesAnimatedWebP(frames: 10_000, canvas: PixelSize(1000))
        let refused = exceededBudget { _ = try coder.decode(data, options: DecodeOptions()) }
        #expect(refused?.budget == .frameCount && refused?.value == 10_000 && refused?.limit == 5_000)
    }

    @Test func framesUnderTheCountAreRefusedByTheirTotalWork() {
        let data = HostileFiles.manyFramesAnimatedWebP(frames: 10_000, canvas: PixelSize(1000))
        let refused = exceededBudget {
            _ = try coder.decode(data, options: DecodeOptions(maxFrameCount: 20_000))
        }
        #expect(refused?.budget == .totalPixels && refused?.limit == DecodeOptions.defaultMaxTotalPixelCount)
    }

    @Test func eachFramesOwnRectangleCountsBesidesTheCanvas() {
        // Three full 10x10 frames: 200, 400, then 600 pixels of work, over a limit of 500.
        let data = HostileFiles.manyFramesAnimatedWebP(frames: 3, canvas: PixelSize(10))
        let refused = exceededBudget { _ = try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 500)) }
        #expect(refused?.budget == .totalPixels && refused?.value == 600 && refused?.limit == 500)
        let small = HostileFiles.manyFramesAnimatedWebP(frames: 3, canvas: PixelSize(10), frameSize: PixelSize(2))
        #expect((try? coder.decode(small, options: DecodeOptions(maxTotalPixelCount: 500)))?.frameCount == 3)
    }

    @Test func firstFrameOnlyNeedsOnlyTheFirstFramesBudget() throws {
        let data = HostileFiles.manyFramesAnimatedWebP(frames: 10_000, canvas: PixelSize(1000))
        let still = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(!still.isAnimated && still.width == 1000 && still.height == 1000)
        #expect(Array(still.pixels.bytes.prefix(4)) == [0, 0, 200, 255])
    }

    // MARK: libwebp's Huffman tables

    static let manyGroupsTableBytes = 65_536 * (2954 * 4 + 568)

    @Test func a65536GroupLosslessFileIsRefusedForItsTableMemory() {
        let data = HostileFiles.manyHuffmanGroupsLosslessWebP()
        #expect(data.count < 400_000)
        let refused = exceededBudget { _ = try coder.decode(data, options: DecodeOptions()) }
        #expect(
            refused?.budget == .decoderMemory && refused?.value == Self.manyGroupsTableBytes
                && refused?.limit == VP8LHuffmanMemory.minimumBound)
    }

    @Test(arguments: [1, 4096, 100_000])
    func incrementalDecodingRefusesItBeforeLibwebpAllocates(chunk: Int) {
        let data = HostileFiles.manyHuffmanGroupsLosslessWebP()
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions())
        let refused = exceededBudget {
            var offset = 0
            while offset < data.count {
                try decoder.append(data[offset..<min(data.count, offset + chunk)])
                offset += chunk
            }
            _ = try decoder.finish()
        }
        #expect(refused?.budget == .decoderMemory && refused?.value == Self.manyGroupsTableBytes)
    }

    @Test func anAnimationFrameIsRefusedWhenItIsDecoded() throws {
        let hostile = WebPChunkList(HostileFiles.manyHuffmanGroupsLosslessWebP()).chunks[0]
        var list = WebPChunkList(HostileFiles.manyFramesAnimatedWebP(frames: 2, canvas: PixelSize(1024)))
        // Frame 1 becomes the many-group bitstream (ANMF: 16 header bytes, then the frame's chunks).
        let frame = list.chunks.indices.filter { list.chunks[$0].fourcc == "ANMF" }[1]
        list.chunks[frame].payload = Array(list.chunks[frame].payload.prefix(16)) + WebPChunkList([hostile]).chunkBytes
        let image = try coder.decode(list.data, options: DecodeOptions())
        #expect(image.frameCount == 2)
        let refused = exceededBudget { _ = try image.frame(at: 1) }
        #expect(refused?.budget == .decoderMemory)
        // A budget error is not damage: the animation keeps both frames.
        #expect(image.frameCount == 2)
    }

    @Test func losslessAlphaOfALossyImageIsBoundedToo() throws {
        var pixels = PixelBuffer(width: 1024, height: 1024, layout: .rgba8)
        for i in stride(from: 3, to: pixels.bytes.count, by: 4) { pixels.bytes[i] = UInt8(truncatingIfNeeded: i) }
        var list = WebPChunkList(
            try coder.encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(quality: 0.5)))
        let alpha = try #require(list.chunks.firstIndex { $0.fourcc == "ALPH" })
        let hostile = WebPChunkList(HostileFiles.manyHuffmanGroupsLosslessWebP()).chunks[0].payload
        // ALPH: one header byte (lossless compression), then a VP8L image stream without its 5-byte header.
        list.chunks[alpha].payload = [0x01] + hostile.dropFirst(5)
        let refused = exceededBudget { _ = try coder.decode(list.data, options: DecodeOptions()) }
        #expect(refused?.budget == .decoderMemory && refused?.value == Self.manyGroupsTableBytes)
    }

    @Test func fewerGroupsMakeAnOrdinaryFileThatDecodes() throws {
        let data = HostileFiles.manyHuffmanGroupsLosslessWebP(groups: 1000)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.width == 1024 && image.pixels.layout == .rgb8)
        #expect(image.pixels.bytes.allSatisfy { $0 == 0 })
        let estimate = data.withUnsafeBytes { raw in
            try? VP8LHuffmanMemory.estimate(
                stream: UnsafeRawBufferPointer(rebasing: raw[25...]), width: 1024, height: 1024)
        }
        #expect(estimate == 1000 * (2954 * 4 + 568))
    }

    /// Files from libwebp's own encoder (transforms, colour cache, entropy images with backward
    /// references) are read to the end of their entropy image and pass.
    @Test(arguments: [(512, 384, 0), (700, 500, 6), (1000, 40, 9)])
    func libwebpsOwnLosslessFilesAreReadAndAllowed(width: Int, height: Int, effort: Int) throws {
        var pixels = WebPTestImages.noise(width: width, height: height, layout: .rgb8)
        // Smooth areas and noisy ones, so the encoder uses several groups and transforms.
        for i in stride(from: 0, to: pixels.bytes.count / 2, by: 1) {
            pixels.bytes[i] = UInt8(truncatingIfNeeded: i / 3 / width)
        }
        let data = try coder.encode(
            Image(pixels: pixels), as: .webp, options: EncodeOptions(compressionLevel: effort, lossless: true))
        let list = WebPChunkList(data)
        let vp8l = try #require(list.chunks.first { $0.fourcc == "VP8L" })
        let estimate = vp8l.payload.withUnsafeBytes { raw in
            try? VP8LHuffmanMemory.estimate(
                stream: UnsafeRawBufferPointer(rebasing: raw[5...]), width: width, height: height)
        }
        let bytes = try #require(estimate)
        #expect(bytes > 0 && bytes <= VP8LHuffmanMemory.minimumBound)
        #expect(try coder.decode(data, options: DecodeOptions()).pixels == pixels)
    }
}
