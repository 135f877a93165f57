import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

@Suite("PNG thumbnails and encoding options")
struct PNGThumbnailAndEncodeTests {
    let coder = PNGCoder()

    /// A picture with detail at every scale, so a wrong resample cannot pass by accident.
    static func busy(width: Int, height: Int, layout: PixelLayout) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, layout: layout)
        let channels = layout.bytesPerPixel
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let value = (x * 7 + y * 13 + c * 50 + (x ^ y) * 3) % 256
                    pixels.bytes[(y * width + x) * channels + c] = UInt8(c == 3 ? (x + y) % 256 : value)
                }
            }
        }
        return pixels
    }

    @Test(arguments: PixelLayout.allCases, [false, true])
    func streamedThumbnailEqualsFullDecodeThenResample(layout: PixelLayout, interlaced: Bool) throws {
        let data = try coder.encode(
            Image(pixels: Self.busy(width: 301, height: 157, layout: layout)), as: .png,
            options: EncodeOptions(progressive: interlaced))
        for (limit, preserve) in [
            (PixelSize(64), true), (PixelSize(width: 100, height: 20), false), (PixelSize(300), true),
        ] {
            let options = DecodeOptions(thumbnailPixelSize: limit, preserveAspectRatio: preserve)
            let thumbnail = try coder.decode(data, options: options)
            let full = try coder.decode(data, options: DecodeOptions())
            #expect(thumbnail.pixels == options.resizedToOutput(full.pixels), "\(limit) \(preserve)")
        }
    }

    @Test(arguments: [1, 100, 4096])
    func streamedThumbnailFedInChunksEndsLikeAWholeDecode(chunk: Int) throws {
        let data = try coder.encode(
            Image(pixels: Self.busy(width: 240, height: 180, layout: .rgba8)), as: .png,
            options: EncodeOptions(compressionLevel: 1))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(48))
        let (image, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: options), data, chunk: chunk)
        #expect(image.pixels == (try coder.decode(data, options: options)).pixels)
        #expect(image.width == 48 && image.height == 36)
        if chunk < data.count / 4 {
            #expect(!partials.isEmpty)
            #expect(partials.allSatisfy { $0.width == 48 && $0.height == 36 })
        }
    }

    @Test func truncatedThumbnailIsAnErrorOrTheRowsSoFar() throws {
        let data = try coder.encode(
            Image(pixels: Self.busy(width: 200, height: 200, layout: .rgb8)), as: .png,
            options: EncodeOptions(compressionLevel: 0))
        let cut = data.prefix(data.count / 2)
        #expect(throws: ImageError.self) {
            try coder.decode(cut, options: DecodeOptions(thumbnailPixelSize: PixelSize(50)))
        }
        let partial = try coder.decode(
            cut, options: DecodeOptions(thumbnailPixelSize: PixelSize(50), allowPartialImage: true))
        #expect(partial.isIncomplete)
        #expect(partial.width == 50 && partial.height == 50)
        // The top rows arrived, the bottom ones did not.
        let full = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(50)))
        #expect(partial.pixels.bytes.prefix(50 * 3 * 10) == full.pixels.bytes.prefix(50 * 3 * 10))
        #expect(partial.pixels.bytes.suffix(50 * 3 * 5).allSatisfy { $0 == 0 })
    }

    @Test(arguments: [false, true])
    func wholeDecodeOfACutFileEqualsTheIncrementalPath(interlaced: Bool) throws {
        let data = try coder.encode(
            Image(pixels: Self.busy(width: 120, height: 90, layout: .rgba8)), as: .png,
            options: EncodeOptions(compressionLevel: 0, progressive: interlaced))
        let options = DecodeOptions(allowPartialImage: true)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            let whole = try coder.decode(cut, options: options)
            let decoder = coder.makeIncrementalDecoder(options: options)
            try decoder.append(cut)
            let incremental = try decoder.finish()
            #expect(whole.isIncomplete && incremental.isIncomplete)
            #expect(whole.pixels == incremental.pixels, "interlaced \(interlaced), \(fraction)")
        }
    }

    @Test func compressionLevelTradesSizeAndStaysLossless() throws {
        let source = Self.busy(width: 256, height: 256, layout: .rgb8)
        let stored = try coder.encode(Image(pixels: source), as: .png, options: EncodeOptions(compressionLevel: 0))
        let best = try coder.encode(Image(pixels: source), as: .png, options: EncodeOptions(compressionLevel: 9))
        #expect(stored.count > 256 * 256 * 3)  // level 0 stores the rows uncompressed
        #expect(best.count < stored.count / 2)
        for data in [stored, best] { #expect(try coder.decode(data, options: DecodeOptions()).pixels == source) }
    }

    @Test(arguments: PixelLayout.allCases)
    func interlacedEncodingIsAdam7AndRoundTrips(layout: PixelLayout) throws {
        let source = Self.busy(width: 33, height: 17, layout: layout)
        let data = try coder.encode(Image(pixels: source), as: .png, options: EncodeOptions(progressive: true))
        #expect(data[data.startIndex + 28] == 1)  // IHDR interlace method byte: Adam7
        #expect(try coder.decode(data, options: DecodeOptions()).pixels == source)
    }

    @Test func iccProfileIsWrittenAsAnICCPChunkAndReadBack() throws {
        let profile = Data(PNGMetadataTests.profile)
        let data = try coder.encode(
            Image(pixels: Self.busy(width: 8, height: 8, layout: .rgb8)), as: .png,
            options: EncodeOptions(iccProfile: profile))
        #expect(data.range(of: Data("iCCP".utf8)) != nil)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.pixels == Self.busy(width: 8, height: 8, layout: .rgb8))
        #expect(decoded.metadata.iccProfile == profile)
    }
}

@Suite("PNG row filters")
struct PNGRowFilterTests {
    /// At zlib level 0 deflate stores the bytes as they are, so each row's filter byte and bytes can be read
    /// in the file: unfiltered, every row appears as a 0 followed by its pixels.
    @Test(arguments: PixelLayout.allCases)
    func unfilteredRowsAreStoredAsTheyAre(layout: PixelLayout) throws {
        let pixels = PNGThumbnailAndEncodeTests.busy(width: 32, height: 16, layout: layout)
        let coder = PNGCoder()
        var options = EncodeOptions(compressionLevel: 0)
        options.rowFilter = .none
        let data = try coder.encode(Image(pixels: pixels), as: .png, options: options)
        let rowBytes = pixels.width * layout.bytesPerPixel
        for y in 0..<pixels.height {
            let row = Data([0] + pixels.bytes[(y * rowBytes)..<((y + 1) * rowBytes)])
            #expect(data.range(of: row) != nil, "row \(y)")
        }
        #expect(try coder.decode(data, options: DecodeOptions()).pixels == pixels)
    }

    /// libpng's adaptive choice predicts a gradient's rows, so the same rows do not appear raw, and the file
    /// round-trips all the same.
    @Test func adaptiveFilteringPredictsAGradient() throws {
        var pixels = PixelBuffer(width: 64, height: 16, layout: .rgb8)
        for index in pixels.bytes.indices { pixels.bytes[index] = UInt8((index / 3) % 64 * 4) }
        let coder = PNGCoder()
        let adaptive = try coder.encode(Image(pixels: pixels), as: .png, options: EncodeOptions(compressionLevel: 0))
        var unfilteredOptions = EncodeOptions(compressionLevel: 0)
        unfilteredOptions.rowFilter = .none
        let unfiltered = try coder.encode(Image(pixels: pixels), as: .png, options: unfilteredOptions)
        let firstRow = Data([0] + pixels.bytes[0..<(64 * 3)])
        #expect(unfiltered.range(of: firstRow) != nil)
        #expect(adaptive.range(of: firstRow) == nil)
        #expect(try coder.decode(adaptive, options: DecodeOptions()).pixels == pixels)
    }
}
