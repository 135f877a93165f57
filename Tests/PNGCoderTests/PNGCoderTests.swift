import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

@Suite("PNGCoder")
struct PNGCoderTests {
    let coder = PNGCoder()

    @Test(arguments: PixelLayout.allCases)
    func roundTripIsLosslessAndKeepsTheLayout(layout: PixelLayout) throws {
        let source = TestPictures.gradient(width: 37, height: 23, layout: layout)
        let data = try coder.encode(Image(pixels: source), as: .png, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .png)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.pixels == source)
        #expect(decoded.format == .png)
    }

    @Test func malformedDataFailsWithTypedErrors() throws {
        let good = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 16, height: 16, layout: .rgb8)),
            as: .png, options: EncodeOptions())
        var badCRC = [UInt8](good)
        badCRC[40] ^= 0xFF  // inside IDAT: the chunk's CRC no longer matches
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("signature only", Data(PNGChunk.signature)),
            ("truncated", good.prefix(good.count / 2)),
            ("bad CRC", Data(badCRC)),
            ("zero width", Data(PNGChunk.signature + PNGChunk.header(width: 0, height: 1) + PNGChunk.make("IEND", []))),
        ]
        for (name, data) in cases {
            #expect(throws: ImageError.self, "\(name)") { try coder.decode(data, options: DecodeOptions()) }
        }
    }

    @Test func hugeHeaderFailsFastBeforeAllocating() throws {
        let data = Data(
            PNGChunk.signature + PNGChunk.header(width: 60000, height: 60000)
                + PNGChunk.make("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + PNGChunk.make("IEND", []))
        #expect(
            throws: ImageError.imageTooLarge(width: 60000, height: 60000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try coder.decode(data, options: DecodeOptions())
        }
        #expect(throws: ImageError.imageTooLarge(width: 16, height: 16, limit: 100)) {
            let small = try coder.encode(
                Image(pixels: TestPictures.gradient(width: 16, height: 16, layout: .gray8)),
                as: .png, options: EncodeOptions())
            return try coder.decode(small, options: DecodeOptions(maxPixelCount: 100))
        }
    }

    @Test(arguments: [(true, 64, 32), (false, 64, 64)])
    func thumbnailsFollowTheAspectRatioOption(preserve: Bool, width: Int, height: Int) throws {
        let data = try coder.encode(
            Image(pixels: TestPictures.gradient(width: 200, height: 100, layout: .rgba8)),
            as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(
            data,
            options: DecodeOptions(
                thumbnailPixelSize: PixelSize(64),
                preserveAspectRatio: preserve))
        #expect(thumbnail.width == width && thumbnail.height == height)
    }

    @Test func decodesTheCorpusAndRejectsItsMalformedFiles() throws {
        guard Corpus.root != nil else { return }  // the corpus is optional; fixtures above cover the rest
        let failures = CorpusChecks.failures(of: coder, format: "png")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}

@Suite("PNG incremental decoding")
struct PNGIncrementalTests {
    func feed(_ data: Data, chunk: Int) throws -> (Image, Bool) {
        let (image, partials) = try IncrementalFeed.run(
            PNGCoder().makeIncrementalDecoder(options: DecodeOptions()), data, chunk: chunk)
        return (image, !partials.isEmpty)
    }

    @Test(arguments: [1, 100, 4096])
    func chunkedDecodingEndsWithTheFullImage(chunk: Int) throws {
        let source = TestPictures.gradient(width: 120, height: 90, layout: .rgba8)
        let data = try PNGCoder().encode(Image(pixels: source), as: .png, options: EncodeOptions())
        let (image, sawPartial) = try feed(data, chunk: chunk)
        #expect(image.pixels == source && !image.isIncomplete)
        if chunk < data.count / 2 { #expect(sawPartial) }
    }

    @Test func interlacedCorpusFilesDecodeTheSameInChunks() throws {
        guard Corpus.root != nil else { return }  // our encoder writes no Adam7 files; the corpus has them
        let interlaced = Corpus.entries.filter {
            $0.expectDecode && $0.format == "png" && $0.path.contains("pngsuite-basi")
        }
        #expect(!interlaced.isEmpty)
        for entry in interlaced {
            let data = try Data(contentsOf: entry.url)
            let full = try PNGCoder().decode(data, options: DecodeOptions())
            for chunk in [1, 100, 4096] {
                #expect(try feed(data, chunk: chunk).0.pixels == full.pixels, "\(entry.path) in \(chunk)-byte chunks")
            }
        }
    }

    @Test func truncatedStreamsFailUnlessPartialImagesAreAllowed() throws {
        let data = try PNGCoder().encode(
            Image(pixels: TestPictures.gradient(width: 64, height: 64, layout: .rgb8)),
            as: .png, options: EncodeOptions())
        #expect(throws: ImageError.self) {
            try PNGCoder().decode(data.prefix(data.count - 20), options: DecodeOptions())
        }
        let partial = try PNGCoder().decode(
            data.prefix(data.count * 2 / 3), options: DecodeOptions(allowPartialImage: true))
        #expect(partial.isIncomplete && partial.width == 64)
    }
}
