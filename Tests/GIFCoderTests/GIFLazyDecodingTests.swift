import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder

/// Frames decoded on demand: memory that does not grow with the frame count, and hostile files
/// (broken compressed data, truncation, huge frames) reported as typed errors.
@Suite("GIF lazy decoding")
struct GIFLazyDecodingTests {
    let coder = GIFCoder()

    /// `count` 64x48 frames of 4 colors, each a full canvas.
    func animation(frames count: Int) -> GIFFixture {
        GIFFixture(
            width: 64, height: 48, palette: [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]],
            frames: (0..<count).map { n in
                .init(width: 64, height: 48, indices: (0..<(64 * 48)).map { UInt8(($0 / 64 + n) % 4) })
            })
    }

    @Test func memoryHeldDoesNotGrowWithTheFrameCount() throws {
        let canvas = 64 * 48 * 4
        var costs: [Int] = []
        for count in [4, 40] {
            let image = try coder.decode(Data(animation(frames: count).bytes), options: DecodeOptions())
            for index in 0..<count { _ = try image.frame(at: index) }
            costs.append(image.memoryCost)
        }
        #expect(costs[0] == costs[1])
        // The poster, plus frame 0 and the two most recent frames kept by AnimatedFrames.
        #expect(costs[1] <= 4 * canvas)
    }

    /// Core's damaged-frame rule (Chromium's): a later frame whose compressed data is broken ends the
    /// animation at the frame before it, lazily and eagerly alike; the decode itself succeeds because
    /// it decompresses no later frame.
    @Test func brokenCompressedDataInALaterFrameEndsTheAnimationThere() throws {
        let fixture = animation(frames: 3)
        var bytes = fixture.bytes
        // Frame 2's data: separator, 9-byte descriptor, code size, then sub-blocks. Keep the block
        // lengths (the file stays whole) and fill the codes with 0xFF: codes never defined.
        var block = fixture.frameOffsets[2] + 11
        while bytes[block] != 0 {
            let length = Int(bytes[block])
            for i in (block + 1)...(block + length) { bytes[i] = 0xFF }
            block += length + 1
        }
        let data = Data(bytes)
        let whole = try coder.decode(Data(fixture.bytes), options: DecodeOptions())

        let lazy = try coder.decode(data, options: DecodeOptions())
        // Not known to be damaged until frame 2 is composed.
        #expect(lazy.frameCount == 3)
        #expect(try lazy.frame(at: 2).pixels == whole.frame(at: 1).pixels)
        #expect(lazy.frameCount == 2 && lazy.frameDurations.count == 2)

        let eager = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(eager.frameCount == 2)
        for index in 0..<2 { #expect(try eager.frame(at: index).pixels == lazy.frame(at: index).pixels) }
        #expect(try coder.decode(data, options: DecodeOptions(allowPartialImage: true)).frameCount == 3)

        // The source itself reports the damage as bad data, which is what the rule keys on.
        let source = try coder.makeFrameSource(for: data, options: DecodeOptions())
        let frame1 = try source.composeFrame(at: 1, onto: source.composeFrame(at: 0, onto: nil).frame)
        #expect {
            try source.composeFrame(at: 2, onto: frame1.frame)
        } throws: { error in
            guard case ImageError.badImageData = error else { return false }
            return true
        }
        // Only frame 0 is shown with firstFrameOnly, and it is whole.
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true)).width == 64)
    }

    @Test func truncatedFilesKeepTheirCompleteFramesOnlyWhenAsked() throws {
        let fixture = animation(frames: 3)
        let bytes = fixture.bytes, offsets = fixture.frameOffsets
        let insideFrame2 = Data(bytes.prefix(offsets[2] + 40))
        #expect(throws: ImageError.self) { try coder.decode(insideFrame2, options: DecodeOptions()) }
        let partial = try coder.decode(insideFrame2, options: DecodeOptions(allowPartialImage: true))
        #expect(partial.frameCount == 2)
        let whole = try coder.decode(Data(bytes), options: DecodeOptions())
        #expect(try partial.frame(at: 1).pixels == whole.frame(at: 1).pixels)

        let insideFrame0 = Data(bytes.prefix(offsets[0] + 40))
        #expect(throws: ImageError.self) {
            try coder.decode(insideFrame0, options: DecodeOptions(allowPartialImage: true))
        }
    }

    @Test func aMissingTrailerIsForgiven() throws {
        var fixture = animation(frames: 3)
        fixture.trailer = false
        #expect(try coder.decode(Data(fixture.bytes), options: DecodeOptions()).frameCount == 3)
    }

    @Test func framesLargerThanThePixelLimitAreRejectedBeforeDecoding() throws {
        // A 10x10 screen holding a frame that claims 1000x1000 pixels (its data is one pixel).
        let fixture = GIFFixture(
            width: 10, height: 10, palette: [[0, 0, 0]], loopCount: nil,
            frames: [.init(width: 1000, height: 1000, indices: [0])])
        #expect(throws: ImageError.imageTooLarge(width: 1000, height: 1000, limit: 10_000)) {
            try coder.decode(Data(fixture.bytes), options: DecodeOptions(maxPixelCount: 10_000))
        }
    }
}
