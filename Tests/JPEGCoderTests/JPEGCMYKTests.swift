import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport

/// CMYK JPEGs store inverted samples (255 = no ink), with or without Adobe's APP14 marker: every
/// reference decoder reads both the same way, and so do we.
@Suite("JPEG CMYK")
struct JPEGCMYKTests {
    /// Stored C, M, Y, K samples and the RGB every reference gives for them: each channel is the stored
    /// C, M or Y value times the stored K over 255.
    static let cases: [(stored: [UInt8], rgb: [UInt8])] = [
        ([255, 0, 255, 255], [255, 0, 255]),  // full magenta ink: magenta
        ([0, 255, 255, 128], [0, 128, 128]),  // full cyan ink, half black: dark cyan
        ([255, 255, 255, 255], [255, 255, 255]),  // no ink: white
    ]

    @Test(arguments: [true, false])
    func cmykIsReadAsInvertedWithOrWithoutTheAdobeMarker(adobeMarker: Bool) throws {
        for (stored, rgb) in Self.cases {
            let data = HostileFiles.flatCMYKJPEG(
                size: PixelSize(width: 19, height: 11), stored: stored, adobeMarker: adobeMarker)
            let image = try JPEGCoder().decode(data, options: DecodeOptions())
            #expect(image.pixels.layout == .rgb8 && image.width == 19 && image.height == 11)
            let expected = [UInt8]((0..<(19 * 11)).map { _ in rgb }.joined())
            #expect(image.pixels.packed().bytes == expected, "stored \(stored), Adobe marker \(adobeMarker)")
        }
    }

    @Test func cmykFedInPiecesMatchesAWholeDecode() throws {
        let data = HostileFiles.flatCMYKJPEG(
            size: PixelSize(width: 40, height: 24), stored: [255, 0, 255, 255], adobeMarker: false)
        let (image, _) = try IncrementalFeed.run(
            JPEGCoder().makeIncrementalDecoder(options: DecodeOptions()), data, chunk: 7)
        #expect(image.pixels == (try JPEGCoder().decode(data, options: DecodeOptions())).pixels)
        let pixel = image.pixels.rgba(x: 5, y: 5)
        #expect(pixel.r == 255 && pixel.g == 0 && pixel.b == 255)
    }
}
