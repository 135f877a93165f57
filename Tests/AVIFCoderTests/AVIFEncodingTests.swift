import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

@Suite("AVIF encoding")
struct AVIFEncodingTests {
    static let fast = AVIFCoder(speed: 10)

    @Test("lossless RGBA and RGB come back exactly", arguments: [PixelLayout.rgba8, .rgb8])
    func lossless(layout: PixelLayout) throws {
        let source = SyntheticPicture.make(width: 37, height: 23, layout: layout)
        let avif = try Self.fast.encode(Image(pixels: source), as: .avif, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(avif) == .avif)
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.pixels.layout == layout)
        #expect(image.pixels == source)
    }

    @Test("lossy files are close to the source, smaller at lower quality, and avifdec reads them the same way")
    func lossy() throws {
        let tool = try AVIFTool()
        let source = SyntheticPicture.make(width: 64, height: 48, layout: .rgba8)
        let good = try Self.fast.encode(Image(pixels: source), as: .avif, options: EncodeOptions(quality: 0.9))
        let poor = try Self.fast.encode(Image(pixels: source), as: .avif, options: EncodeOptions(quality: 0.2))
        #expect(poor.count < good.count)
        let decoded = try AVIFCoder().decode(good, options: DecodeOptions()).pixels
        #expect(SyntheticPicture.meanDifference(decoded, source) < 3)
        #expect(SyntheticPicture.maxDifference(decoded, try tool.avifdec(good)) == 0)
    }

    @Test(
        "chroma subsampling is what the options ask for",
        arguments: [
            (EncodeOptions.ChromaSubsampling.none, "YUV444"), (.half, "YUV422"), (.quarter, "YUV420"),
        ])
    func subsampling(option: EncodeOptions.ChromaSubsampling, expected: String) throws {
        let tool = try AVIFTool()
        let avif = try Self.fast.encode(
            Image(pixels: SyntheticPicture.make(width: 32, height: 32)), as: .avif,
            options: EncodeOptions(chromaSubsampling: option))
        let path = try tool.directory.write(avif, to: "s.avif").path
        let info = try ReferenceTool.run("avifdec", ["--info", path])
        #expect(info.contains("Format         : \(expected)"))
    }

    @Test("the ICC profile is embedded")
    func icc() throws {
        let profile = Data((0..<200).map { UInt8($0) })
        let avif = try Self.fast.encode(
            Image(pixels: SyntheticPicture.make(width: 8, height: 8)), as: .avif,
            options: EncodeOptions(iccProfile: profile))
        #expect(try AVIFCoder().decode(avif, options: DecodeOptions()).metadata.iccProfile == profile)
    }

    @Test("animations stream frame by frame into a sequence with their durations; firstFrameOnly writes a still")
    func animation() throws {
        let frames = (0..<3).map {
            ImageFrame(
                pixels: SyntheticPicture.make(width: 24, height: 16, layout: .rgba8, phase: $0 * 50),
                duration: .milliseconds(100 * ($0 + 1)))
        }
        let animated = Image(frames: frames)
        let avif = try Self.fast.encode(animated, as: .avif, options: EncodeOptions(lossless: true))
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.frameCount == 3)
        #expect(image.frameDurations.map { ($0 / .milliseconds(1)).rounded() } == [100, 200, 300])
        for index in 0..<3 { #expect(try image.frame(at: index).pixels == frames[index].pixels) }
        let still = try Self.fast.encode(
            animated, as: .avif, options: EncodeOptions(lossless: true, firstFrameOnly: true))
        #expect(try AVIFCoder().decode(still, options: DecodeOptions()).frameCount == 1)
    }

    @Test("another format is refused")
    func otherFormat() {
        #expect(throws: ImageError.unsupportedFormat(.png)) {
            try AVIFCoder().encode(
                Image(pixels: SyntheticPicture.make(width: 2, height: 2)), as: .png, options: EncodeOptions())
        }
    }
}
