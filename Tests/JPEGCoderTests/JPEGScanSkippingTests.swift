import CJPEG
import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageJPEGCoder

/// At DCT scale 1/8 a progressive thumbnail passes over the AC scans of components whose 1x1 IDCT reads
/// only the DC coefficient, and keeps the coefficient buffer sparse. These tests hold both to the promise
/// that this changes nothing: the pixels equal those of the same 1/8 decode that Huffman-decodes every
/// scan into libjpeg's own coefficient buffer.
@Suite("JPEG progressive thumbnails skip unused scans")
struct JPEGScanSkippingTests {
    /// Decodes at the DCT scale `thumbnail` selects; returns the scaled pixels (before the final resample)
    /// and the decoder's state. `skipping: false` is the reference: every scan, libjpeg's own buffer.
    func scaledDecode(
        _ data: Data, thumbnail: Int, skipping: Bool, sparse: Bool? = nil
    ) throws -> (PixelBuffer, skipped: Int) {
        let (pixels, state) = try scaledDecodeState(
            data, thumbnail: thumbnail, skipping: skipping, sparse: sparse ?? skipping)
        return (pixels, Int(state.skipped_scans))
    }

    func scaledDecodeState(
        _ data: Data, thumbnail: Int, skipping: Bool, sparse: Bool
    ) throws -> (PixelBuffer, cjpeg_state) {
        let decompressor = try JPEGDecompressor(
            options: DecodeOptions(thumbnailPixelSize: PixelSize(thumbnail)),
            skipsUnusedScans: skipping, sparseCoefficients: sparse)
        let pixels = try decompressor.decode(data)
        return (pixels, decompressor.state)
    }

    /// Progressive files of each kind at a 1/8 thumbnail: 4:2:0, 4:4:4, gray, and (from the corpus) one
    /// with a restart marker after every MCU.
    func sparseCases() throws -> [(name: String, data: Data, components: Int)] {
        var cases: [(String, Data, Int)] = [
            ("4:2:0", try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true), 3),
            (
                "4:4:4",
                try JPEGFixtures.encode(
                    JPEGFixtures.detailed(width: 203, height: 101), progressive: true, subsampling: .none), 3
            ),
            (
                "gray",
                try JPEGFixtures.encode(
                    JPEGFixtures.detailed(width: 203, height: 101, layout: .gray8), progressive: true), 1
            ),
        ]
        if let root = Corpus.root {
            let url = root.appendingPathComponent("conformance/jpeg/gen-progressive-restart-every-block.jpg")
            cases.append(("restart markers", try Data(contentsOf: url), 3))
        }
        return cases
    }

    @Test func sparseCoefficientBuffersAreUsedAndGiveTheSamePixels() throws {
        for (name, data, components) in try sparseCases() {
            let (reference, plain) = try scaledDecodeState(data, thumbnail: 12, skipping: false, sparse: false)
            #expect(plain.sparse_components == 0 && plain.coefficient_bytes == 0, "\(name)")
            // Sparse with skipped scans (DC-only components), and sparse alone (every coefficient kept).
            for skipping in [true, false] {
                let (pixels, state) = try scaledDecodeState(data, thumbnail: 12, skipping: skipping, sparse: true)
                #expect(pixels == reference, "\(name), skipping \(skipping)")
                #expect(Int(state.sparse_components) == components, "\(name)")
            }
        }
    }

    @Test func sparseCoefficientBufferIsAFractionOfLibjpegs() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 1600, height: 1200), progressive: true)
        // 75 px (75 x 56): twice it fits 1/8 (200 x 150).
        let (pixels, state) = try scaledDecodeState(data, thumbnail: 75, skipping: true, sparse: true)
        #expect(pixels == (try scaledDecodeState(data, thumbnail: 75, skipping: false, sparse: false)).0)
        // libjpeg's buffer: 128 bytes per block, 200 x 150 luma blocks and 100 x 75 for each chroma component.
        let libjpegBytes = (200 * 150 + 2 * 100 * 75) * 128
        #expect(
            state.sparse_components == 3 && Int(state.coefficient_bytes) < libjpegBytes / 4,
            "\(state.coefficient_bytes) bytes")
    }

    @Test func sparseCoefficientBuffersOnlyForEighthScaleProgressiveDecodes() throws {
        let progressive = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true)
        let baseline = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: false)
        for (data, thumbnail) in [(progressive, 60), (progressive, 150), (progressive, 0), (baseline, 12)] {
            let (_, state) = try scaledDecodeState(data, thumbnail: thumbnail, skipping: true, sparse: true)
            #expect(state.sparse_components == 0, "thumbnail \(thumbnail)")
        }
    }

    /// Bytes in chunks, a render after each: the partial images and the final image of the sparse decoder
    /// equal those of libjpeg's own buffer, scan for scan.
    @Test(arguments: [97, 1024])
    func incrementalSparseDecodesShowTheSamePartialImages(chunk: Int) throws {
        for (name, data, _) in try sparseCases() {
            func feed(
                sparse: Bool, skip: Bool? = nil
            ) throws -> (partials: [PixelBuffer], final: PixelBuffer?, sparseComponents: Int32) {
                let decompressor = try JPEGDecompressor(
                    options: DecodeOptions(thumbnailPixelSize: PixelSize(12)),
                    skipsUnusedScans: skip ?? sparse, sparseCoefficients: sparse)
                var partials: [PixelBuffer] = []
                var offset = 0
                while offset < data.count {
                    try decompressor.append(data.subdata(in: offset..<min(data.count, offset + chunk)))
                    offset += chunk
                    decompressor.renderCompleteScans()
                    if decompressor.state.scans_shown > 0, let image = decompressor.snapshot(), partials.last != image {
                        partials.append(image)
                    }
                }
                try decompressor.finish()
                return (partials, decompressor.snapshot(), decompressor.state.sparse_components)
            }
            // Partial images with skipped scans are not those of decoding every scan (only the final image is
            // the same), so each sparse decode is compared with the same decode into libjpeg's own buffer.
            for skip in [true, false] {
                let sparse = try feed(sparse: true, skip: skip), plain = try feed(sparse: false, skip: skip)
                #expect(sparse.sparseComponents > 0 && plain.sparseComponents == 0, "\(name)")
                #expect(
                    sparse.partials.count > 1 && sparse.partials == plain.partials,
                    "\(name), skip \(skip): \(sparse.partials.count) partials")
                #expect(sparse.final != nil && sparse.final == plain.final, "\(name), skip \(skip)")
            }
        }
    }

    @Test(arguments: [EncodeOptions.ChromaSubsampling.quarter, .half, .none])
    func eighthScaleThumbnailEqualsDecodingEveryScan(subsampling: EncodeOptions.ChromaSubsampling) throws {
        let data = try JPEGFixtures.encode(
            JPEGFixtures.detailed(width: 400, height: 296), progressive: true,
            subsampling: subsampling)
        // An 18 px thumbnail (18 x 13): twice it, the shrink-on-load headroom, fits 1/8 of both sides (50 x 37).
        let (fast, skipped) = try scaledDecode(data, thumbnail: 18, skipping: true)
        let (reference, none) = try scaledDecode(data, thumbnail: 18, skipping: false)
        #expect(fast.width == 50 && fast.height == 37)
        #expect(fast == reference)
        // Luma's AC scans are always skipped; with 4:4:4 every component gets the 1x1 IDCT.
        #expect(skipped >= (subsampling == .none ? 6 : 4) && none == 0, "skipped \(skipped)")
    }

    @Test func grayEighthScaleThumbnailEqualsDecodingEveryScan() throws {
        let data = try JPEGFixtures.encode(
            JPEGFixtures.detailed(width: 203, height: 101, layout: .gray8), progressive: true)
        let (fast, skipped) = try scaledDecode(data, thumbnail: 12, skipping: true)
        #expect(fast.width == 26 && fast.height == 13)
        #expect(fast == (try scaledDecode(data, thumbnail: 12, skipping: false)).0)
        #expect(skipped > 0)
    }

    @Test func largerScalesDecodeEveryScan() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 400, height: 296), progressive: true)
        // scales 1/4, 1/2, 1 (outputs 60x44, 150x111, 300x222): AC coefficients reach the output
        for thumbnail in [60, 150, 300] {
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
