import CWebP
import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageWebPCoder

/// Thumbnails: libwebp's scaler where it is right, Core's premultiplied resampler where it is not, and the
/// same size as every other coder for the same image.
@Suite("WebP thumbnails")
struct WebPThumbnailTests {
    let coder = WebPCoder()

    /// Lossy with alpha, transparent pixels keeping their colour (libwebp's `exact`), as a browser gets them.
    static func lossyExact(_ pixels: PixelBuffer, quality: Float = 90) throws -> Data {
        var config = WebPConfig()
        #expect(WebPConfigInit(&config) != 0)
        config.quality = quality
        config.exact = 1
        var picture = WebPPicture()
        #expect(WebPPictureInit(&picture) != 0)
        picture.use_argb = 1
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        defer { WebPPictureFree(&picture) }
        let rgba = pixels.converted(to: .rgba8).packed()
        _ = rgba.bytes.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(rgba.bytesPerRow))
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { pointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            return WebPEncode(&config, &picture)
        }
        try #require(ok != 0)
        return Data(bytes: writer.mem, count: writer.size)
    }

    /// The largest channel difference between two buffers of the same shape.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// How far the visible pixels (alpha above 8) of `pixels` are from pure green, in the worst channel.
    static func worstDeviationFromGreen(_ pixels: PixelBuffer) -> Int {
        var worst = 0
        for i in stride(from: 0, to: pixels.bytes.count, by: 4) where pixels.bytes[i + 3] > 8 {
            worst = max(worst, Int(pixels.bytes[i]), 255 - Int(pixels.bytes[i + 1]), Int(pixels.bytes[i + 2]))
        }
        return worst
    }

    @Test func libwebpsScalerIsWrongOnNarrowLossyImages() throws {
        // Documents why Core resamples these: libwebp turns a 2 x 60 red-to-blue ramp green.
        var pixels = PixelBuffer(width: 2, height: 60, layout: .rgb8)
        for i in stride(from: 0, to: pixels.bytes.count, by: 3) {
            pixels.bytes[i] = UInt8(i / 3 * 2); pixels.bytes[i + 2] = 200
        }
        let data = try coder.encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(quality: 0.95))
        let scaled = try WebPStillDecoder.decode(
            data, layout: .rgb8, size: PixelSize(width: 1, height: 40),
            source: PixelSize(width: 2, height: 60), watch: .unlimited)
        let ours = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(40)))
        #expect(ours.width == 1 && ours.height == 40)
        #expect(Self.maxDifference(scaled, ours.pixels) > 100)
    }

    @Test(arguments: [(1, 60, 40), (2, 60, 40), (2, 100, 70), (60, 2, 40), (1, 9, 8)])
    func narrowLossyThumbnailsKeepTheirColours(width: Int, height: Int, limit: Int) throws {
        var pixels = PixelBuffer(width: width, height: height, layout: .rgb8)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 3, t = (x + y) * 255 / max(1, width + height - 2)
                pixels.bytes[o] = UInt8(t); pixels.bytes[o + 1] = 40; pixels.bytes[o + 2] = UInt8(255 - t)
            }
        }
        let data = try coder.encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(quality: 0.95))
        let full = try coder.decode(data, options: DecodeOptions())
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(limit))
        let thumbnail = try coder.decode(data, options: options)
        let expected = ImageResampler.resample(full.pixels, width: thumbnail.width, height: thumbnail.height)
        #expect(thumbnail.pixels.width == options.outputSize(width: width, height: height).width)
        #expect(Self.maxDifference(thumbnail.pixels, expected) <= 2)
    }

    @Test func lossyThumbnailsWithAlphaDoNotBleedTransparentColour() throws {
        // Left half transparent red, right half opaque green: every visible thumbnail pixel is green.
        let width = 64, height = 32
        var pixels = PixelBuffer(width: width, height: height, layout: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                if x < width / 2 + 1 {
                    pixels.bytes[o] = 255
                } else {
                    pixels.bytes[o + 1] = 255; pixels.bytes[o + 3] = 255
                }
            }
        }
        let data = try Self.lossyExact(pixels)
        let thumbnail = try coder.decode(
            data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
        #expect(thumbnail.pixels.layout == .rgba8 && thumbnail.width == 20)
        let deviation = Self.worstDeviationFromGreen(thumbnail.pixels)
        #expect(deviation <= 12, "transparent red bled into visible pixels: \(deviation)")
    }

    @Test func libwebpsScalerIsWrongWhereWeDoNotUseIt() throws {
        // Documents why Core resamples these cases: libwebp's own scaler on the same bytes.
        let width = 64, height = 32
        var pixels = PixelBuffer(width: width, height: height, layout: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                if x < width / 2 + 1 {
                    pixels.bytes[o] = 255
                } else {
                    pixels.bytes[o + 1] = 255; pixels.bytes[o + 3] = 255
                }
            }
        }
        let data = try Self.lossyExact(pixels)
        let scaled = try WebPStillDecoder.decode(
            data, layout: .rgba8, size: PixelSize(width: 20, height: 10),
            source: PixelSize(width: width, height: height), watch: .unlimited)
        #expect(Self.worstDeviationFromGreen(scaled) > 12)
    }

    @Test(arguments: [(333, 77), (77, 333), (4, 1000), (1001, 3), (640, 480)])
    func thumbnailSizesAreCoresOutputSize(width: Int, height: Int) throws {
        let pixels = TestPictures.gradient(width: width, height: height, layout: .rgb8)
        for lossless in [true, false] {
            let data = try coder.encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(lossless: lossless))
            for limit in [PixelSize(64), PixelSize(width: 100, height: 30), PixelSize(width: 0, height: 50)] {
                for gap in [ImageResampler.thumbnailReducingGap, 1] {
                    var options = DecodeOptions(thumbnailPixelSize: limit)
                    options.thumbnailReducingGap = gap
                    let thumbnail = try coder.decode(data, options: options)
                    #expect(
                        PixelSize(width: thumbnail.width, height: thumbnail.height)
                            == options.outputSize(width: width, height: height))
                }
            }
        }
    }

    @Test func theGapSetsHowFarLibwebpScales() {
        let source = PixelSize(width: 2000, height: 1000)
        let box = PixelSize(width: 200, height: 100)
        #expect(WebPScaling.shrinkOnLoadSize(from: source, to: box) == PixelSize(width: 400, height: 200))
        #expect(WebPScaling.shrinkOnLoadSize(from: source, to: box, gap: 1) == box)
        #expect(WebPScaling.shrinkOnLoadSize(from: source, to: box, gap: 0) == box)
        #expect(WebPScaling.shrinkOnLoadSize(from: source, to: PixelSize(width: 1500, height: 750), gap: 2) == source)
    }

    @Test func turnedThumbnailsFitOnceUpright() throws {
        var list = WebPChunkList(
            try coder.encode(
                Image(pixels: TestPictures.gradient(width: 301, height: 99, layout: .rgb8)),
                as: .webp, options: EncodeOptions(lossless: true)))
        // Orientation 6 (rotate 90 degrees): the upright image is 99 x 301.
        list.chunks.insert(WebPChunkList.vp8x(width: 301, height: 99, flags: WebPChunkList.exifFlag), at: 0)
        list.chunks.append(.init(fourcc: "EXIF", payload: WebPTestImages.exif(orientation: 6)))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(64))
        let thumbnail = try coder.decode(list.data, options: options)
        #expect(
            PixelSize(width: thumbnail.width, height: thumbnail.height) == options.outputSize(width: 99, height: 301))
    }
}
