import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder
import WebImageTestSupport

@Suite("GIFCoder")
struct GIFCoderTests {
    let coder = GIFCoder()

    /// Colors whose channels differ in their top bits, so the quantizer keeps them exactly.
    static let palette: [[UInt8]] = [
        [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 0, 0], [255, 255, 255],
    ]

    func frame(_ shift: Int, transparentColumns: Bool = false) -> PixelBuffer {
        var pixels = PixelBuffer(width: 30, height: 20, layout: .rgba8)
        for y in 0..<20 {
            for x in 0..<30 {
                let color = Self.palette[(x / 5 + y / 5 + shift) % Self.palette.count]
                let o = (y * 30 + x) * 4
                pixels.bytes[o] = color[0]; pixels.bytes[o + 1] = color[1]; pixels.bytes[o + 2] = color[2]
                pixels.bytes[o + 3] = transparentColumns && x < 10 ? 0 : 255
            }
        }
        return pixels
    }

    @Test func stillRoundTripKeepsEveryColor() throws {
        let source = frame(0)
        let data = try coder.encode(Image(pixels: source), as: .gif, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .gif)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(!decoded.isAnimated && decoded.pixels == source)
    }

    @Test func animatedRoundTripKeepsFramesDelaysAndLoopCount() throws {
        let frames = (0..<5).map {
            ImageFrame(pixels: frame($0), duration: .milliseconds([100, 200, 50, 300, 100][$0]))
        }
        let data = try coder.encode(Image(frames: frames, loopCount: 0), as: .gif, options: EncodeOptions())
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.frameCount == 5 && decoded.loopCount == 0)
        #expect(decoded.frameDurations == [100, 200, 50, 300, 100].map { .milliseconds($0) })
        for index in (0..<5).shuffled() { #expect(try decoded.frame(at: index).pixels == frames[index].pixels) }
    }

    @Test func transparentPixelsShowTheCanvasAndDisposalClearsThem() throws {
        // Frame 1 is transparent on the left; the encoder marks such frames "dispose to background".
        let frames = [
            ImageFrame(pixels: frame(0), duration: .milliseconds(100)),
            ImageFrame(pixels: frame(1, transparentColumns: true), duration: .milliseconds(100)),
        ]
        let data = try coder.encode(Image(frames: frames, loopCount: 1), as: .gif, options: EncodeOptions())
        let decoded = try coder.decode(data, options: DecodeOptions())
        let second = try decoded.frame(at: 1).pixels
        // Left columns keep frame 0's pixels (drawn under a transparent area), the rest are frame 1's.
        #expect(second.rgba(x: 2, y: 2) == frame(0).rgba(x: 2, y: 2))
        #expect(second.rgba(x: 20, y: 2) == frame(1).rgba(x: 20, y: 2))
        #expect(decoded.loopCount == 1)
    }

    @Test func malformedHugeAndTruncatedFilesFailWithTypedErrors() throws {
        let frames = (0..<4).map { ImageFrame(pixels: frame($0), duration: .milliseconds(100)) }
        let data = try coder.encode(Image(frames: frames, loopCount: 0), as: .gif, options: EncodeOptions())
        let truncated = data.prefix(data.count * 3 / 4)
        #expect(throws: ImageError.self) { try coder.decode(truncated, options: DecodeOptions()) }
        let partial = try coder.decode(truncated, options: DecodeOptions(allowPartialImage: true))
        #expect(partial.frameCount >= 1 && partial.frameCount < 4)

        let hugeScreen = Data(Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x3B])
        #expect(
            throws: ImageError.imageTooLarge(width: 65535, height: 65535, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try coder.decode(hugeScreen, options: DecodeOptions())
        }
        for broken in [Data(), Data("GIF89a".utf8), Data(Array("GIF89a".utf8) + [10, 0, 10, 0, 0, 0, 0, 0x3B])] {
            #expect(throws: ImageError.self) { try coder.decode(broken, options: DecodeOptions()) }
        }
    }

    @Test func thumbnailsAreComposedThenDownsampled() throws {
        let frames = (0..<3).map { ImageFrame(pixels: frame($0), duration: .milliseconds(100)) }
        let data = try coder.encode(Image(frames: frames, loopCount: 0), as: .gif, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(15)))
        #expect(thumbnail.width == 15 && thumbnail.height == 10)
        #expect(try thumbnail.frame(at: 2).pixels == ImageResampler.resample(frames[2].pixels, width: 15, height: 10))
    }

    @Test func decodesTheCorpusAndRejectsItsMalformedFiles() throws {
        guard Corpus.root != nil else { return }  // the corpus is optional; fixtures above cover the rest
        // Pillow grows the canvas for frames outside the logical screen; we clip like browsers, so the
        // manifest size is only compared for files whose note does not mention it.
        let failures = CorpusChecks.failures(of: coder, format: "gif") { !$0.note.contains("logical") }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
