import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Every conformance PNG (PngSuite and the rest of the corpus) against `png-reference.tsv`, made by
/// `scripts/reference/png-reference.py` from Pillow's decode (see the script for how 16-bit samples and tRNS
/// become RGBA8). Skipped without the corpus.
@Suite("PNG reference pixels")
struct PNGReferenceTests {
    /// One line of the reference file; `hash` is nil for files the script could not check.
    struct Reference {
        let file: String, width: Int, height: Int, hash: UInt64?
    }

    static let references: [Reference] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "png-reference.tsv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4 else { return nil }
            return Reference(file: f[0], width: Int(f[1]) ?? 0, height: Int(f[2]) ?? 0, hash: UInt64(f[3], radix: 16))
        }
    }()

    @Test func theReferenceCoversTheWholePNGCorpusFolder() {
        #expect(Self.references.count > 180)
        #expect(Self.references.filter { $0.hash == nil }.count <= 3)
    }

    @Test func everyConformancePNGMatchesTheReferencePixelForPixel() throws {
        guard let root = Corpus.root else { return }
        var mismatches: [String] = []
        var compared = 0
        for reference in Self.references {
            let data = try Data(contentsOf: root.appendingPathComponent("conformance/png/\(reference.file)"))
            // Stored orientation: Pillow does not apply EXIF orientation (the metadata tests check that).
            let image = try PNGCoder().decode(data, options: DecodeOptions(applyOrientation: false))
            guard let hash = reference.hash else { continue }
            let pixels = image.pixels.converted(to: .rgba8).packed()
            if (pixels.width, pixels.height) != (reference.width, reference.height) {
                mismatches.append(
                    "\(reference.file): \(pixels.width)x\(pixels.height), reference \(reference.width)x\(reference.height)"
                )
            } else if PixelHash.fnv1a(pixels.bytes) != hash {
                mismatches.append("\(reference.file): pixels differ")
            }
            compared += 1
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(compared >= 180)
    }
}
