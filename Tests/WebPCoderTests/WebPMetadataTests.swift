import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// ICC, EXIF and XMP chunks: read onto `image.metadata`, EXIF orientation honoured, ICC written.
@Suite("WebP metadata")
struct WebPMetadataTests {
    let coder = WebPCoder()
    let icc = Data("not a real ICC profile, but the container does not care".utf8)
    let xmp = Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)

    /// A 20x10 lossless still with ICCP, EXIF (orientation 6, "Exif\0\0"-prefixed as some writers do) and XMP chunks.
    func fileWithMetadata() throws -> (data: Data, pixels: PixelBuffer) {
        let pixels = TestPictures.gradient(width: 20, height: 10, layout: .rgb8)
        let simple = WebPChunkList(
            try coder.encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(lossless: true)))
        let flags = WebPChunkList.iccFlag | WebPChunkList.exifFlag | WebPChunkList.xmpFlag
        let file = WebPChunkList(
            [
                WebPChunkList.vp8x(width: 20, height: 10, flags: flags),
                .init(fourcc: "ICCP", payload: Array(icc)),
            ] + simple.chunks
                + [
                    .init(fourcc: "EXIF", payload: Array("Exif\0\0".utf8) + WebPTestImages.exif(orientation: 6)),
                    .init(fourcc: "XMP ", payload: Array(xmp)),
                ])
        return (file.data, pixels)
    }

    @Test func iccExifAndXMPChunksAreExposedOnTheImage() throws {
        let (data, pixels) = try fileWithMetadata()
        let image = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(image.metadata.iccProfile == icc)
        #expect(image.metadata.exif == Data(WebPTestImages.exif(orientation: 6)))
        #expect(image.metadata.xmp == xmp)
        #expect(image.orientation == .right && !image.isOrientationApplied)
        #expect(image.pixels == pixels)
    }

    @Test func exifOrientationIsAppliedWhenAsked() throws {
        let image = try coder.decode(try fileWithMetadata().data, options: DecodeOptions(applyOrientation: true))
        #expect(image.isOrientationApplied && image.width == 10 && image.height == 20)
    }

    @Test func theFirstFrameOfAnAnimationIsTurnedUprightLikeAStill() throws {
        let animation = WebPTestImages.animation(frames: 3)
        var file = WebPChunkList(try coder.encode(animation, as: .webp, options: EncodeOptions(lossless: true)))
        #expect(file.chunks.first?.fourcc == "VP8X")
        file.chunks[0].payload[0] |= WebPChunkList.exifFlag
        file.chunks.append(.init(fourcc: "EXIF", payload: WebPTestImages.exif(orientation: 6)))
        let still = try coder.decode(file.data, options: DecodeOptions(firstFrameOnly: true))
        let frame0 = try coder.decode(file.data, options: DecodeOptions()).frame(at: 0).pixels
        #expect(still.orientation == .right && still.isOrientationApplied)
        #expect(still.pixels == frame0.applyingOrientation(.right))
    }

    @Test func incrementalDecodingKeepsTheMetadataThatFollowsThePixels() throws {
        let (data, _) = try fileWithMetadata()
        let (image, _) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions(applyOrientation: false)),
            data, chunk: 100)
        #expect(image.metadata.iccProfile == icc && image.metadata.xmp == xmp && image.orientation == .right)
    }

    @Test(arguments: [false, true])
    func theEncoderEmbedsTheICCProfile(animated: Bool) throws {
        let source =
            animated
            ? WebPTestImages.animation(frames: 3)
            : Image(pixels: TestPictures.gradient(width: 16, height: 16, layout: .rgb8))
        let data = try coder.encode(source, as: .webp, options: EncodeOptions(quality: 0.8, iccProfile: icc))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.metadata.iccProfile == icc)
        #expect(decoded.frameCount == source.frameCount)
    }
}
