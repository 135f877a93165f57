import Foundation
import Testing
@testable import WebImageJPEGCoder
import WebImageCore
import WebImageTestSupport

/// At DCT scale 1/8 a progressive thumbnail passes over the AC scans of components whose 1x1 IDCT reads
/// only the DC coefficient. These tests hold it to the promise that this changes nothing: the pixels equal
/// those of the same 1/8 decode that Huffman-decodes every scan.
@Suite("JPEG progressive thumbnails skip unused scans")
struct JPEGScanSkippingTests {
    /// Decodes at the DCT scale `thumbnail` selects; returns the scaled pixels (before the final resample)
    /// and the decoder's state.
    func scaledDecode(_ data: Data, thumbnail: Int, skipping: Bool) throws -> (PixelBuffer, skipped: Int) {
        let decompressor = try JPEGDecompressor(options: DecodeOptions(thumbnailPixelSize: PixelSize(thumbnail)),
                                                skipsUnusedScans: skipping)
        let pixels = try decompressor.decode(data)
        return (pixels, Int(decompressor.state.skipped_scans))
    }

    @Test(arguments: [EncodeOptions.ChromaSubsampling.quarter, .half, .none])
    func eighthScaleThumbnailEqualsDecodingEveryScan(subsampling: EncodeOptions.ChromaSubsampling) throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true,
                                           subsampling: subsampling)
        // 37 px fits 1/8 of both sides (50 x 37).
        let (fast, skipped) = try scaledDecode(data, thumbnail: 37, skipping: true)
        let (reference, none) = try scaledDecode(data, thumbnail: 37, skipping: false)
        #expect(fast.width == 50 && fast.height == 37)
        #expect(fast == reference)
        // Luma's AC scans are always skipped; with 4:4:4 every component gets the 1x1 IDCT.
        #expect(skipped >= (subsampling == .none ? 6 : 4) && none == 0, "skipped \(skipped)")
    }

    @Test func grayEighthScaleThumbnailEqualsDecodingEveryScan() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 203, height: 101, layout: .gray8), progressive: true)
        let (fast, skipped) = try scaledDecode(data, thumbnail: 12, skipping: true)
        #expect(fast.width == 26 && fast.height == 13)
        #expect(fast == (try scaledDecode(data, thumbnail: 12, skipping: false)).0)
        #expect(skipped > 0)
    }

    @Test func largerScalesDecodeEveryScan() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true)
        for thumbnail in [38, 100, 200] {  // scales 1/4, 1/2, 1: AC coefficients reach the output
            #expect(try scaledDecode(data, thumbnail: thumbnail, skipping: true).skipped == 0)
        }
    }

    @Test func truncatedProgressiveThumbnailStillReportsTheTruncation() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true)
        let cut = data.prefix(data.count * 3 / 4)
        #expect(throws: ImageError.badImageData(reason: "JPEG: premature end of data (truncated file)")) {
            try JPEGCoder().decode(cut, options: DecodeOptions(thumbnailPixelSize: PixelSize(50)))
        }
    }

    @Test func corpusProgressiveFilesGiveTheSameEighthScalePixels() throws {
        guard Corpus.root != nil else { return }
        for entry in Corpus.entries where entry.format == "jpeg" && entry.expectDecode {
            let data = try Data(contentsOf: entry.url)
            guard let fast = try? scaledDecode(data, thumbnail: 1, skipping: true) else { continue }
            let reference = try scaledDecode(data, thumbnail: 1, skipping: false)
            #expect(fast.0 == reference.0, "\(entry.path) (skipped \(fast.skipped) scans)")
        }
    }
}
