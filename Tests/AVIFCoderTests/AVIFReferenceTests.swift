import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

/// Stills made by avifenc, decoded by AVIFCoder and by avifdec (PNG, read by our PNG coder): every pixel
/// must be identical, because both convert libavif's YUV to 8-bit RGB the same way (libavif's default
/// chroma upsampling, rounding 10 and 12 bits to nearest).
@Suite("AVIF against avifdec")
struct AVIFReferenceTests {
    static let size = (width: 96, height: 64)

    @Test(
        "8/10/12-bit, 4:4:4, 4:2:2, 4:2:0 and 4:0:0 stills match avifdec pixel for pixel",
        arguments: ["8", "10", "12"], ["444", "422", "420", "400"])
    func stills(depth: String, yuv: String) throws {
        let tool = try AVIFTool()
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: Self.size.width, height: Self.size.height),
            ["-d", depth, "-y", yuv, "-s", "10", "--min", "20", "--max", "30"])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        let reference = try tool.avifdec(avif)
        #expect(image.pixels.layout == .rgb8)
        #expect(image.width == Self.size.width && image.height == Self.size.height)
        #expect(SyntheticPicture.maxDifference(image.pixels, reference) == 0)
    }

    @Test(
        "alpha, straight and premultiplied, matches avifdec (premultiplied files come back straight)",
        arguments: [false, true])
    func alpha(premultiplied: Bool) throws {
        let tool = try AVIFTool()
        let source = SyntheticPicture.make(width: Self.size.width, height: Self.size.height, layout: .rgba8)
        let avif = try tool.avifenc(source, ["-s", "10", "--min", "10", "--max", "20"] + (premultiplied ? ["-p"] : []))
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.pixels.layout == .rgba8)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.avifdec(avif)) == 0)
        // Straight alpha: the colour of half-transparent pixels is close to the source's, not darkened.
        #expect(SyntheticPicture.meanDifference(image.pixels, source) < 4)
    }

    @Test("a 10-bit lossless file rounds to the nearest 8-bit value")
    func tenBitRounding() throws {
        let tool = try AVIFTool()
        // A 16-bit PNG is not something our PNG coder writes, so the 10-bit values come from avifenc's own
        // scaling of 8-bit input (v * 1023 / 255, rounded); rounding back must give v exactly.
        let source = SyntheticPicture.make(width: 64, height: 32)
        let avif = try tool.avifenc(source, ["-d", "10", "-l", "-s", "10"])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(SyntheticPicture.maxDifference(image.pixels, source) == 0)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.avifdec(avif)) == 0)
    }

    @Test("a 2x2 grid image decodes whole and matches avifdec")
    func grid() throws {
        let tool = try AVIFTool()
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: 128, height: 128), ["-g", "2x2", "-s", "10", "-y", "444"])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.width == 128 && image.height == 128)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.avifdec(avif)) == 0)
    }

    @Test("avifenc's lossless files decode to the source pixels exactly")
    func lossless() throws {
        let tool = try AVIFTool()
        let source = SyntheticPicture.make(width: 40, height: 30, layout: .rgba8)
        let image = try AVIFCoder().decode(try tool.avifenc(source, ["-l", "-s", "10"]), options: DecodeOptions())
        #expect(SyntheticPicture.maxDifference(image.pixels, source) == 0)
    }
}
