import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder
import WebImageTestSupport

/// Every frame of the conformance corpus against `gif-reference.tsv`, made by
/// `scripts/reference/gif-reference.py` (Pillow's LZW decoder, browser-policy composition; see the script for
/// where and why that differs from Pillow's own compositor). Skipped without the corpus.
@Suite("GIF reference frames")
struct GIFReferenceTests {
    /// One line of the reference file.
    struct Reference {
        let file: String, frame: Int, width: Int, height: Int, durationMilliseconds: Int, hash: UInt64
    }

    static let references: [Reference] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "gif-reference.tsv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, let frame = Int(f[1]), let width = Int(f[2]), let height = Int(f[3]),
                let duration = Int(f[4]), let hash = UInt64(f[5], radix: 16)
            else { return nil }
            return Reference(
                file: f[0], frame: frame, width: width, height: height, durationMilliseconds: duration, hash: hash)
        }
    }()

    @Test func theReferenceFileIsReadable() {
        #expect(Self.references.count > 100)
    }

    @Test func everyFrameMatchesTheReferencePixelForPixel() throws {
        guard Corpus.root != nil else { return }
        let files = Dictionary(grouping: Self.references, by: \.file)
        var mismatches: [String] = []
        for (file, frames) in files.sorted(by: { $0.key < $1.key }) {
            let entry = Corpus.entries.first { $0.path == "conformance/gif/\(file)" }
            let data = try Data(contentsOf: Corpus.root!.appendingPathComponent("conformance/gif/\(file)"))
            let image = try GIFCoder().decode(data, options: DecodeOptions())
            if image.frameCount != frames.count {
                mismatches.append("\(file): \(image.frameCount) frames, reference \(frames.count)")
            }
            if let expected = entry?.frameCount, expected != image.frameCount {
                mismatches.append("\(file): \(image.frameCount) frames, manifest \(expected)")
            }
            for reference in frames.sorted(by: { $0.frame < $1.frame }) where reference.frame < image.frameCount {
                let frame = try image.frame(at: reference.frame)
                let pixels = frame.pixels.converted(to: .rgba8).packed()
                if (pixels.width, pixels.height) != (reference.width, reference.height) {
                    mismatches.append(
                        "\(file) #\(reference.frame): \(pixels.width)x\(pixels.height), reference \(reference.width)x\(reference.height)"
                    )
                } else if PixelHash.fnv1a(pixels.bytes) != reference.hash {
                    mismatches.append("\(file) #\(reference.frame): pixels differ")
                }
                let milliseconds = Int((image.frameDurations[reference.frame] / .milliseconds(1)).rounded())
                if image.isAnimated, milliseconds != reference.durationMilliseconds {
                    mismatches.append(
                        "\(file) #\(reference.frame): \(milliseconds) ms, reference \(reference.durationMilliseconds) ms"
                    )
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }
}
