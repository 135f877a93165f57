import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageJXLCoder
import WebImagePNGCoder
import WebImageTestSupport

/// Files made by cjxl, decoded by JXLCoder and by djxl (PNG, read by our PNG coder).
@Suite("JPEG XL against djxl")
struct JXLReferenceTests {
    /// djxl 0.7 renders to float and rounds to 8 bits itself, while JXLCoder asks libjxl for 8-bit
    /// output: the two may differ by one step in a channel.
    static let tolerance = 1

    @Test("lossy stills (VarDCT) match djxl within one step", arguments: [PixelLayout.rgb8, .rgba8])
    func lossy(layout: PixelLayout) throws {
        let tool = try JXLTool()
        let jxl = try tool.cjxl(SyntheticPicture.make(width: 96, height: 64, layout: layout), ["-d", "1.5", "-e", "3"])
        #expect(JXLCoder().canDecode(jxl))
        let image = try JXLCoder().decode(jxl, options: DecodeOptions())
        #expect(image.pixels.layout == layout)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.djxlPixels(jxl)) <= Self.tolerance)
    }

    @Test("lossless stills decode to the source pixels exactly", arguments: [PixelLayout.rgb8, .rgba8])
    func lossless(layout: PixelLayout) throws {
        let source = SyntheticPicture.make(width: 50, height: 30, layout: layout)
        let image = try JXLCoder().decode(try JXLTool().cjxl(source, ["-d", "0", "-e", "3"]), options: DecodeOptions())
        #expect(image.pixels == source)
    }

    @Test(
        "a lossless animation (cjxl from an APNG) decodes frame by frame, in any order, like djxl and to the source frames"
    )
    func animation() throws {
        let frames = (0..<4).map {
            ImageFrame(
                pixels: SyntheticPicture.make(width: 32, height: 24, layout: .rgba8, phase: $0 * 40),
                duration: .milliseconds(50 * ($0 + 1)))
        }
        let apng = try APNGCoder().encode(Image(frames: frames), as: .png, options: EncodeOptions())
        let jxl = try JXLTool().cjxl(apng, ext: "png", ["-d", "0", "-e", "3"])
        let image = try JXLCoder().decode(jxl, options: DecodeOptions())
        #expect(image.frameCount == 4)
        #expect(image.frameDurations.map { ($0 / .milliseconds(1)).rounded() } == [50, 100, 150, 200])
        #expect((image.animation?.cachedFrameCount ?? 99) <= 1)
        // djxl's APNG of the file, read by APNGCoder, is the reference; where alpha is 0 the colour is not
        // part of the picture. The order goes back, so the decoder restarts from the beginning.
        func visible(_ p: PixelBuffer) -> [UInt8] {
            stride(from: 0, to: p.bytes.count, by: 4).flatMap {
                p.bytes[$0 + 3] == 0 ? [0, 0, 0, 0] : Array(p.bytes[$0..<($0 + 4)])
            }
        }
        let reference = try APNGCoder().decode(try JXLTool().djxl(jxl, ext: "apng"), options: DecodeOptions())
        for index in [0, 1, 3, 2, 1, 3] {
            let ours = try image.frame(at: index).pixels
            #expect(visible(ours) == visible(try reference.frame(at: index).pixels), "frame \(index) vs djxl")
            #expect(ours == frames[index].pixels, "frame \(index) vs the source")
        }
        #expect(throws: ImageError.decodeBudgetExceeded(.frameCount, value: 3, limit: 2)) {
            try JXLCoder().decode(jxl, options: DecodeOptions(maxFrameCount: 2))
        }
        #expect(try JXLCoder().decode(jxl, options: DecodeOptions(firstFrameOnly: true)).pixels == frames[0].pixels)
    }

    @Test("a recompressed JPEG gives back the original file byte for byte, as djxl does; other files give nil")
    func jpegReconstruction() throws {
        let tool = try JXLTool()
        let jpeg = try JPEGCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 64, height: 48)), as: .jpeg,
            options: EncodeOptions(quality: 0.85))
        let jxl = try tool.cjxl(jpeg, ext: "jpg", [])
        #expect(try JXLCoder.reconstructedJPEG(from: jxl) == jpeg)
        #expect(try tool.djxl(jxl, ext: "jpg") == jpeg)
        // Its pixels decode too.
        let image = try JXLCoder().decode(jxl, options: DecodeOptions())
        #expect(image.width == 64 && image.height == 48)
        let pixelsOnly = try tool.cjxl(SyntheticPicture.make(width: 16, height: 16), ["-d", "1"])
        #expect(try JXLCoder.reconstructedJPEG(from: pixelsOnly) == nil)
    }

    @Test("a progressive file decoded while it arrives shows partial images before the end and the whole image at it")
    func progressive() throws {
        let tool = try JXLTool()
        let jxl = try tool.cjxl(SyntheticPicture.make(width: 512, height: 384), ["-d", "1", "-p", "-e", "3"])
        let whole = try JXLCoder().decode(jxl, options: DecodeOptions())
        #expect(JXLCoder().canDecodeIncrementally(jxl.prefix(4)))
        let decoder = JXLCoder().makeIncrementalDecoder(options: DecodeOptions())
        var partials = 0
        let step = max(1, jxl.count / 16)
        var offset = 0
        while offset < jxl.count {
            try decoder.append(jxl.subdata(in: offset..<min(jxl.count, offset + step)))
            offset += step
            if offset < jxl.count, let partial = decoder.partialImage(), partial.isIncomplete {
                #expect(partial.width == 512 && partial.height == 384)
                partials += 1
            }
        }
        #expect(partials > 0)
        let final = try decoder.finish()
        #expect(!final.isIncomplete)
        #expect(final.pixels == whole.pixels)
    }
}
