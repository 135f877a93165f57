import Foundation
import Testing
import WebImageCore
import WebImageHEIFCoder
import WebImageTestSupport

@Suite("HEIF encoding")
struct HEIFEncodingTests {
    static let fast = HEIFCoder(x265Preset: "ultrafast")

    /// x265 stores the samples losslessly, but libheif 1.15 converts RGB to its 4:4:4 planes and back with
    /// rounding, so a lossless HEIC comes back within 1 of each channel.
    static let losslessTolerance = 1

    @Test("lossless RGB and RGBA come back within libheif's rounding", arguments: [PixelLayout.rgb8, .rgba8])
    func lossless(layout: PixelLayout) throws {
        let source = SyntheticPicture.make(width: 40, height: 24, layout: layout)
        let heic = try Self.fast.encode(Image(pixels: source), as: .heic, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(heic) == .heic)
        let image = try HEIFCoder().decode(heic, options: DecodeOptions())
        #expect(image.pixels.layout == layout)
        #expect(SyntheticPicture.maxDifference(image.pixels, source) <= Self.losslessTolerance)
    }

    @Test("lossy files are close, smaller at lower quality and with 4:2:0, and heif-convert reads them the same way")
    func lossy() throws {
        let tool = try HEIFTool()
        let source = SyntheticPicture.make(width: 96, height: 64)
        let good = try Self.fast.encode(
            Image(pixels: source), as: .heic, options: EncodeOptions(quality: 0.9, chromaSubsampling: .none))
        let poor = try Self.fast.encode(
            Image(pixels: source), as: .heic, options: EncodeOptions(quality: 0.3, chromaSubsampling: .none))
        let subsampled = try Self.fast.encode(Image(pixels: source), as: .heic, options: EncodeOptions(quality: 0.9))
        #expect(poor.count < good.count)
        #expect(subsampled.count < good.count)
        let decoded = try HEIFCoder().decode(good, options: DecodeOptions()).pixels
        #expect(SyntheticPicture.meanDifference(decoded, source) < 3)
        #expect(SyntheticPicture.maxDifference(decoded, try tool.heifConvert(good)) == 0)
    }

    @Test("the ICC profile is embedded")
    func icc() throws {
        let profile = Data((0..<200).map { UInt8($0) })
        let heic = try Self.fast.encode(
            Image(pixels: SyntheticPicture.make(width: 16, height: 16)), as: .heic,
            options: EncodeOptions(iccProfile: profile))
        #expect(try HEIFCoder().decode(heic, options: DecodeOptions()).metadata.iccProfile == profile)
    }
}
