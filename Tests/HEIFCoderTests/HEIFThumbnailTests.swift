import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageHEIFCoder

/// Thumbnails come from the embedded thumbnail image when it is at least the output size.
@Suite("HEIF thumbnails")
struct HEIFThumbnailTests {
    /// A 256x192 HEIC with heif-enc's 64x48 thumbnail.
    static func file(_ tool: HEIFTool) throws -> Data {
        try tool.heifEnc(SyntheticPicture.make(width: 256, height: 192), ["-q", "60", "-t", "64"])
    }

    /// The embedded thumbnail decoded on its own.
    static func embedded(_ heic: Data) throws -> PixelBuffer {
        let file = try HEIFFile(data: heic, options: DecodeOptions())
        return try file.withThumbnails { (thumbnails) throws(ImageError) -> PixelBuffer in
            guard let first = thumbnails.first else { throw .badImageData(reason: "no thumbnail") }
            return try HEIFPixels.decode(first.handle, watch: .unlimited)
        }
    }

    @Test("a size the thumbnail covers is made from the thumbnail")
    func fromEmbedded() throws {
        let heic = try Self.file(try HEIFTool())
        let thumbnail = try Self.embedded(heic)
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        let image = try HEIFCoder().decode(heic, options: DecodeOptions(thumbnailPixelSize: PixelSize(40)))
        #expect(image.width == 40 && image.height == 30)
        #expect(image.pixels == ImageResampler.resample(thumbnail, width: 40, height: 30))
        let exact = try HEIFCoder().decode(heic, options: DecodeOptions(thumbnailPixelSize: PixelSize(64)))
        #expect(exact.pixels == thumbnail)
    }

    @Test("a size larger than the thumbnail decodes the primary image and resamples it")
    func fromPrimary() throws {
        let heic = try Self.file(try HEIFTool())
        let full = try HEIFCoder().decode(heic, options: DecodeOptions())
        let image = try HEIFCoder().decode(heic, options: DecodeOptions(thumbnailPixelSize: PixelSize(128)))
        #expect(image.width == 128 && image.height == 96)
        #expect(image.pixels == ImageResampler.resample(full.pixels, width: 128, height: 96))
    }
}
