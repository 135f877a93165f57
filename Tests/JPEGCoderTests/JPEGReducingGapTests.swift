import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageJPEGCoder

/// `DecodeOptions.thumbnailReducingGap` sets how far the DCT scaling may go before the final resample:
/// 2 (the default) stops at twice the thumbnail, 1 goes to the thumbnail itself.
@Suite("JPEG shrink-on-load gap")
struct JPEGReducingGapTests {
    /// 400x296 fitted into 50: 50x37, which DCT scale 1/8 gives exactly and 1/4 gives twice over.
    let data: Data
    let box = PixelSize(50)

    init() throws {
        data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: false)
    }

    func options(gap: Double?) -> DecodeOptions {
        var options = DecodeOptions(thumbnailPixelSize: box)
        if let gap { options.thumbnailReducingGap = gap }
        return options
    }

    @Test func theDefaultGapLeavesTwiceTheThumbnailForTheResample() throws {
        let scaled = try JPEGDecompressor(options: options(gap: nil)).decode(data)
        #expect(scaled.width == 100 && scaled.height == 74, "\(scaled.width)x\(scaled.height)")
    }

    @Test func gapOneScalesTheDCTDownToTheThumbnail() throws {
        let scaled = try JPEGDecompressor(options: options(gap: 1)).decode(data)
        #expect(scaled.width == 50 && scaled.height == 37)
        // Nothing is left to resample: the coder's answer is the DCT-scaled decode itself.
        let image = try JPEGCoder().decode(data, options: options(gap: 1))
        #expect(image.width == 50 && image.height == 37)
        #expect(image.pixels.bytes == scaled.bytes)
    }

    @Test func gapsBelowOneActAsOne() throws {
        let scaled = try JPEGDecompressor(options: options(gap: 0.25)).decode(data)
        #expect(scaled.width == 50 && scaled.height == 37)
    }

    @Test(arguments: [PixelSize(1), PixelSize(7), PixelSize(37), PixelSize(width: 40, height: 9), PixelSize(199)])
    func gapOneKeepsTheExactThumbnailSize(limit: PixelSize) throws {
        for (width, height) in [(9, 17), (101, 37), (203, 101), (400, 296)] {
            let jpeg = try JPEGFixtures.encode(JPEGFixtures.detailed(width: width, height: height), progressive: false)
            var options = DecodeOptions(thumbnailPixelSize: limit)
            options.thumbnailReducingGap = 1
            let expected = options.outputSize(width: width, height: height)
            let image = try JPEGCoder().decode(jpeg, options: options)
            #expect(image.width == expected.width && image.height == expected.height, "\(width)x\(height) in \(limit)")
        }
    }
}
