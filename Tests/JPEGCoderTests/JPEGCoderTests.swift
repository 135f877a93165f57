import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport

@Suite("JPEGCoder")
struct JPEGCoderTests {
    let coder = JPEGCoder()

    func encode(
        _ pixels: PixelBuffer, _ options: EncodeOptions = EncodeOptions(quality: 1, chromaSubsampling: .none)
    ) throws -> Data {
        try coder.encode(Image(pixels: pixels), as: .jpeg, options: options)
    }

    @Test func roundTripAtFullQualityIsClose() throws {
        let source = TestPictures.gradient(width: 64, height: 40, layout: .rgb8)
        for progressive in [false, true] {
            var options = EncodeOptions(quality: 1, chromaSubsampling: .none)
            options.progressive = progressive
            let decoded = try coder.decode(try encode(source, options), options: DecodeOptions())
            #expect(decoded.pixels.layout == .rgb8)
            #expect(TestPictures.maxDifference(decoded.pixels, source) <= 6)
        }
        let gray = TestPictures.gradient(width: 30, height: 30, layout: .gray8)
        let decodedGray = try coder.decode(try encode(gray), options: DecodeOptions())
        #expect(decodedGray.pixels.layout == .gray8 && TestPictures.maxDifference(decodedGray.pixels, gray) <= 3)
        // RGBA input: alpha is dropped.
        let rgba = TestPictures.gradient(width: 20, height: 20, layout: .rgba8)
        #expect(try coder.decode(try encode(rgba), options: DecodeOptions()).pixels.layout == .rgb8)
    }

    @Test func subsamplingAndQualityChangeTheOutput() throws {
        let source = TestPictures.gradient(width: 64, height: 64, layout: .rgb8)
        let sizes = try [EncodeOptions.ChromaSubsampling.none, .half, .quarter].map {
            try encode(source, EncodeOptions(quality: 0.9, chromaSubsampling: $0)).count
        }
        #expect(sizes[0] > sizes[2])
        #expect(
            try encode(source, EncodeOptions(quality: 0.3)).count < encode(source, EncodeOptions(quality: 0.95)).count)
    }

    @Test func truncatedFilesFailUnlessPartialImagesAreAllowed() throws {
        let data = try encode(TestPictures.gradient(width: 128, height: 128, layout: .rgb8))
        let half = data.prefix(data.count / 2)
        #expect(throws: ImageError.badImageData(reason: "JPEG: premature end of data (truncated file)")) {
            try coder.decode(half, options: DecodeOptions())
        }
        let partial = try coder.decode(half, options: DecodeOptions(allowPartialImage: true))
        #expect(partial.isIncomplete && partial.width == 128)
        // Bytes after the end of the image are harmless.
        let trailing = data + Data(repeating: 0x42, count: 32)
        #expect(try coder.decode(trailing, options: DecodeOptions()).width == 128)
    }

    @Test func malformedAndHugeHeadersFailWithTypedErrors() throws {
        let data = try encode(TestPictures.gradient(width: 16, height: 16, layout: .rgb8))
        var bytes = [UInt8](data)
        // Find SOF0 (FF C0) and claim 65500 x 65500.
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xFF; bytes[sof + 6] = 0xDC; bytes[sof + 7] = 0xFF; bytes[sof + 8] = 0xDC
        #expect(
            throws: ImageError.imageTooLarge(width: 65500, height: 65500, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try coder.decode(Data(bytes), options: DecodeOptions())
        }
        var garbage = [UInt8](data)
        for i in 200..<min(garbage.count - 2, 400) { garbage[i] = 0xFF }  // corrupt the entropy-coded data
        for broken in [Data(), Data([0xFF, 0xD8, 0xFF]), Data(garbage), Data("<html>404</html>".utf8)] {
            #expect(throws: ImageError.self) { try coder.decode(broken, options: DecodeOptions()) }
        }
    }

    /// A JPEG of the quadrant picture with an APP1 EXIF segment holding `orientation`.
    func exifJPEG(orientation: Int) throws -> Data {
        let jpeg = [UInt8](try encode(TestPictures.quadrants()))
        // TIFF (little endian): header, IFD0 with one entry: tag 0x0112, type SHORT, count 1, value.
        let tiff: [UInt8] = [
            0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
            0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation), 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00,
        ]
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(jpeg.prefix(2) + app1 + jpeg.dropFirst(2))
    }

    @Test(arguments: ImageOrientation.allCases)
    func exifOrientationIsAppliedAndReported(orientation: ImageOrientation) throws {
        let data = try exifJPEG(orientation: orientation.rawValue)
        let upright = try coder.decode(data, options: DecodeOptions())
        #expect(upright.orientation == orientation && upright.isOrientationApplied)
        let expected = TestPictures.quadrants().applyingOrientation(orientation)
        #expect(upright.width == expected.width && upright.height == expected.height)
        // Compare the centre of each quadrant: colors survive JPEG closely there.
        for (fx, fy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
            let x = Int(Double(expected.width) * fx), y = Int(Double(expected.height) * fy)
            let a = upright.pixels.rgba(x: x, y: y), b = expected.rgba(x: x, y: y)
            #expect(abs(Int(a.r) - Int(b.r)) < 40 && abs(Int(a.g) - Int(b.g)) < 40 && abs(Int(a.b) - Int(b.b)) < 40)
        }
        let stored = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == orientation && !stored.isOrientationApplied && stored.width == 64)
        #expect(stored.metadata.exif != nil)
    }

    @Test(arguments: [(true, 100, 67), (false, 100, 100)])
    func scaledThumbnailsHaveTheRequestedSize(preserve: Bool, width: Int, height: Int) throws {
        let data = try encode(
            TestPictures.gradient(width: 960, height: 640, layout: .rgb8), EncodeOptions(quality: 0.8))
        let thumbnail = try coder.decode(
            data,
            options: DecodeOptions(
                thumbnailPixelSize: PixelSize(100),
                preserveAspectRatio: preserve))
        #expect(thumbnail.width == width && thumbnail.height == height)
        let full = try coder.decode(data, options: DecodeOptions())
        let reference = ImageResampler.resample(full.pixels, width: width, height: height)
        #expect(TestPictures.maxDifference(thumbnail.pixels, reference) <= 24)
    }

    @Test func decodesTheCorpusAndRejectsItsMalformedFiles() throws {
        guard Corpus.root != nil else { return }  // the corpus is optional; fixtures above cover the rest
        let failures = CorpusChecks.failures(of: coder, format: "jpeg")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
