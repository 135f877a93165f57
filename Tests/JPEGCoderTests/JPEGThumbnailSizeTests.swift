import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport

/// A JPEG thumbnail is decoded at a DCT scale (1/2, 1/4, 1/8, which round sizes up) and then resampled:
/// its size must still be the one ``DecodeOptions/outputSize(width:height:)`` gives for the real, upright
/// image, as for every other format, never one computed from the rounded scaled size.
@Suite("JPEG thumbnail sizes")
struct JPEGThumbnailSizeTests {
    static let imageSizes = [
        (1, 1), (3, 2), (9, 17), (15, 4), (33, 65), (63, 31), (101, 37), (203, 101), (333, 17), (17, 259), (1001, 999),
    ]
    static let thumbnailSizes = [
        PixelSize(1), PixelSize(2), PixelSize(5), PixelSize(16), PixelSize(37), PixelSize(50),
        PixelSize(100), PixelSize(width: 40, height: 9), PixelSize(width: 7, height: 90),
    ]
    static let orientations: [ImageOrientation] = [.up, .right, .leftMirrored, .down]

    /// `jpeg` with an APP1 EXIF segment holding `orientation`, right after SOI.
    static func withOrientation(_ jpeg: Data, _ orientation: ImageOrientation) -> Data {
        let payload = Array("Exif\0\0".utf8) + TestEXIF.tiff(orientation: UInt16(orientation.rawValue))
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
            + jpeg.dropFirst(2)
    }

    @Test(arguments: [false, true])
    func thumbnailsHaveTheSizeComputedFromTheRealUprightImage(progressive: Bool) throws {
        var mismatches: [String] = []
        for (width, height) in Self.imageSizes {
            let plain = try JPEGFixtures.encode(
                JPEGFixtures.detailed(width: width, height: height), progressive: progressive)
            for orientation in Self.orientations {
                let data = Self.withOrientation(plain, orientation)
                let upright = orientation.swapsDimensions ? (height, width) : (width, height)
                for limit in Self.thumbnailSizes {
                    for preserve in [true, false] {
                        let options = DecodeOptions(thumbnailPixelSize: limit, preserveAspectRatio: preserve)
                        let expected = options.outputSize(width: upright.0, height: upright.1)
                        let image = try JPEGCoder().decode(data, options: options)
                        if image.width != expected.width || image.height != expected.height {
                            mismatches.append(
                                "\(width)x\(height) \(orientation) in \(limit) preserve \(preserve): "
                                    + "\(image.width)x\(image.height), expected \(expected)")
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(5))")
    }

    @Test func incrementalThumbnailsHaveTheSameSize() throws {
        let data = Self.withOrientation(
            try JPEGFixtures.encode(JPEGFixtures.detailed(width: 101, height: 37), progressive: true), .right)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(50))
        let expected = options.outputSize(width: 37, height: 101)
        let (image, partials) = try IncrementalFeed.run(
            JPEGCoder().makeIncrementalDecoder(options: options), data, chunk: 64)
        #expect(image.width == expected.width && image.height == expected.height)
        #expect(partials.allSatisfy { $0.width == expected.width && $0.height == expected.height })
        #expect(image.pixels == (try JPEGCoder().decode(data, options: options)).pixels)
    }

    @Test func theThumbnailIsNeverUpscaledFromASmallerScale() throws {
        // A wide stored image turned upright by EXIF, into a wide box without keeping its shape: the DCT
        // scale must leave enough pixels in the stored orientation for the upright output.
        let data = Self.withOrientation(
            try JPEGFixtures.encode(JPEGFixtures.detailed(width: 800, height: 80), progressive: false), .right)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 60, height: 10), preserveAspectRatio: false)
        let image = try JPEGCoder().decode(data, options: options)
        #expect(image.width == 60 && image.height == 10)
        let full = try JPEGCoder().decode(data, options: DecodeOptions())
        let reference = ImageResampler.resample(full.pixels, width: 60, height: 10)
        #expect(TestPictures.maxDifference(image.pixels, reference) <= 24)
    }
}
