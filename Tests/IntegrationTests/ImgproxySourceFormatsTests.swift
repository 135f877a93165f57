import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// The umbrella module decodes the sources imgproxy reads beyond the web formats (TIFF, BMP, ICO) through
/// the shared coders, sniffed by magic bytes, and encodes them.
@Suite struct ImgproxySourceFormatsTests {
    @Test(arguments: [ImageFormat.tiff, .bmp, .ico])
    func theSharedCodersDecodeAndEncodeIt(_ format: ImageFormat) throws {
        WebImage.registerBuiltInCoders()
        let coders = ImageCodersManager.shared
        #expect(coders.decodableFormats.contains(format))
        #expect(coders.canEncode(to: format))
        let pixels = SyntheticPicture.make(width: 40, height: 30, layout: .rgba8)
        let data = try coders.encode(Image(pixels: pixels), as: format, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == format)
        let image = try coders.decode(data, options: DecodeOptions())
        #expect(image.format == format)
        #expect((image.width, image.height) == (40, 30))
    }

    @Test func theAcceptHeaderStillOffersAVIFFirst() {
        #expect(WebImage.httpLoader.acceptHeader.hasPrefix("image/avif,"))
    }
}
