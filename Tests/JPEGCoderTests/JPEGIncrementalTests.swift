import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageJPEGCoder

@Suite("JPEG incremental decoding")
struct JPEGIncrementalTests {
    let coder = JPEGCoder()

    /// The partial images a download would show: `partialImage()` answers with the last one again until
    /// there is something new, so repeats are dropped.
    func distinctPartials(_ data: Data, chunk: Int) throws -> [Image] {
        let (_, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), data, chunk: chunk)
        return partials.reduce(into: []) { shown, image in
            if shown.last?.pixels != image.pixels { shown.append(image) }
        }
    }

    @Test(arguments: [1, 100, 4096])
    func chunkedDecodingShowsPartialImagesAndEndsWithTheFullImage(chunk: Int) throws {
        for progressive in [false, true] {
            var options = EncodeOptions(quality: 0.9)
            options.progressive = progressive
            let data = try coder.encode(
                Image(pixels: TestPictures.gradient(width: 200, height: 150, layout: .rgb8)),
                as: .jpeg, options: options)
            let (final, partialImages) = try IncrementalFeed.run(
                coder.makeIncrementalDecoder(options: DecodeOptions()),
                data, chunk: chunk)
            #expect(partialImages.allSatisfy { $0.width == 200 && $0.height == 150 })
            let partials = partialImages.count
            #expect(final.pixels == (try coder.decode(data, options: DecodeOptions())).pixels)
            #expect(!final.isIncomplete)
            if chunk < data.count / 4 { #expect(partials > 0, "progressive: \(progressive)") }
        }
    }

    @Test(arguments: [1, 100, 4096])
    func everyKindOfFileFedInChunksEndsEqualToAFullDecode(chunk: Int) throws {
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(20))
        for (name, data) in try JPEGFixtures.chunkedCases() {
            for options in [DecodeOptions(), thumbnail] {
                let (final, _) = try IncrementalFeed.run(
                    coder.makeIncrementalDecoder(options: options), data, chunk: chunk)
                #expect(final.pixels == (try coder.decode(data, options: options)).pixels, "\(name)")
            }
        }
    }

    @Test func exifOrientationAndMetadataMatchAFullDecode() throws {
        let upright = try JPEGCoderTests().exifJPEG(orientation: ImageOrientation.right.rawValue)
        let full = try coder.decode(upright, options: DecodeOptions())
        let (final, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), upright, chunk: 7)
        #expect(final.pixels == full.pixels && final.orientation == .right && final.metadata.exif == full.metadata.exif)
        #expect(partials.allSatisfy { $0.width == full.width && $0.height == full.height && $0.orientation == .right })
    }

    @Test func baselinePartialImagesShowMoreRowsEachTimeAndGrayBelow() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 64, height: 256), progressive: false)
        let partials = try distinctPartials(data, chunk: 64)
        #expect(partials.count >= 8)
        // Rows not received yet are exactly gray (128); their count goes down with every partial image.
        let grayRows = partials.map { image in
            (0..<image.height).reversed().prefix { y in
                image.pixels.bytes[(y * image.pixels.bytesPerRow)..<((y + 1) * image.pixels.bytesPerRow)].allSatisfy {
                    $0 == 128
                }
            }.count
        }
        #expect(zip(grayRows, grayRows.dropFirst()).allSatisfy { $0 > $1 }, "\(grayRows)")
        #expect(grayRows.first! > 0)
    }

    @Test func progressivePartialImagesShowEachNewScanAtFullSize() throws {
        let source = JPEGFixtures.detailed(width: 160, height: 120)
        let data = try JPEGFixtures.encode(source, progressive: true)
        let full = try coder.decode(data, options: DecodeOptions())
        let partials = try distinctPartials(data, chunk: 1)
        // libjpeg's simple progression has 10 scans; each newly complete one gives one partial image.
        #expect(partials.count >= 5 && partials.count <= 10, "\(partials.count)")
        #expect(partials.allSatisfy { $0.width == 160 && $0.height == 120 && $0.isIncomplete })
        // Scans converge on the final picture.
        func distance(_ image: Image) -> Int {
            zip(image.pixels.bytes, full.pixels.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        }
        #expect(distance(partials.last!) < distance(partials.first!))
    }

    @Test func feedingOneByteAtATimeDecodesEachByteOnce() throws {
        // A partial image is only made when something new can be shown: asking after every byte of a
        // progressive file yields no more images than it has scans.
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 48, height: 48), progressive: true)
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions())
        var distinct = 0
        var previous: Image?
        for byte in data.dropLast() {
            try decoder.append(Data([byte]))
            if let image = decoder.partialImage(), image.pixels != previous?.pixels { distinct += 1; previous = image }
        }
        try decoder.append(data.suffix(1))
        #expect(distinct <= 10)
        #expect(try decoder.finish().pixels == coder.decode(data, options: DecodeOptions()).pixels)
    }

    @Test(arguments: [false, true])
    func truncatedStreamFailsAtFinishUnlessPartialImagesAreAllowed(progressive: Bool) throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 128, height: 96), progressive: progressive)
        let half = data.prefix(data.count / 2)
        let strict = coder.makeIncrementalDecoder(options: DecodeOptions())
        try strict.append(half)
        #expect(throws: ImageError.badImageData(reason: "JPEG: premature end of data (truncated file)")) {
            try strict.finish()
        }
        let lenient = coder.makeIncrementalDecoder(options: DecodeOptions(allowPartialImage: true))
        try lenient.append(half)
        let partial = try lenient.finish()
        #expect(partial.isIncomplete && partial.width == 128 && partial.height == 96)
        #expect(partial.pixels == (try coder.decode(half, options: DecodeOptions(allowPartialImage: true))).pixels)
        // Cut inside the header: no image at all.
        let header = coder.makeIncrementalDecoder(options: DecodeOptions(allowPartialImage: true))
        try header.append(data.prefix(40))
        #expect(throws: ImageError.self) { try header.finish() }
    }

    @Test func garbageFailsWithinTheFirstBytes() throws {
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions())
        try decoder.append(Data("<".utf8))
        #expect(throws: ImageError.self) { try decoder.append(Data("h".utf8)) }
        #expect(throws: ImageError.self) { try decoder.finish() }
    }

    @Test func aHugeHeaderFailsBeforeAnyPixelMemory() throws {
        var bytes = [UInt8](try JPEGFixtures.encode(JPEGFixtures.detailed(width: 16, height: 16), progressive: true))
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        bytes[sof + 5] = 0xFF; bytes[sof + 6] = 0xDC; bytes[sof + 7] = 0xFF; bytes[sof + 8] = 0xDC
        let decoder = coder.makeIncrementalDecoder(options: DecodeOptions())
        #expect(
            throws: ImageError.imageTooLarge(width: 65500, height: 65500, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            for byte in bytes { try decoder.append(Data([byte])) }
        }
    }

    @Test func corpusFilesFedInChunksEndEqualToAFullDecode() throws {
        guard Corpus.root != nil else { return }  // optional; the fixtures above cover every kind
        for entry in Corpus.entries where entry.format == "jpeg" {
            let data = try Data(contentsOf: entry.url)
            let options = DecodeOptions(applyOrientation: false)
            let full = Result { try coder.decode(data, options: options) }
            for chunk in data.count < 100_000 ? [100, 4096] : [4096] {
                let fed = Result {
                    try IncrementalFeed.run(coder.makeIncrementalDecoder(options: options), data, chunk: chunk).image
                }
                switch (full, fed) {
                case (.success(let a), .success(let b)): #expect(a.pixels == b.pixels, "\(entry.path) chunk \(chunk)")
                case (.failure, .failure): break
                default: Issue.record("\(entry.path) chunk \(chunk): full decode \(full), incremental \(fed)")
                }
            }
        }
    }
}
