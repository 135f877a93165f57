import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageWebPCoder

/// Every frame of the WebP conformance corpus against `webp-reference.tsv`, made by
/// `scripts/reference/webp-reference.py` from Pillow, which composes animations with libwebp's WebPAnimDecoder
/// (ours are composed by WebPFrameSource). Fully transparent pixels are compared as 0,0,0,0 on both
/// sides (see the script for why), and orientation is not applied. Skipped without the corpus.
@Suite("WebP reference frames")
struct WebPReferenceTests {
    /// One line of the reference file.
    struct Reference {
        let file: String, frame: Int, width: Int, height: Int, durationMilliseconds: Int, hash: UInt64
        /// Pillow's mode: "RGB" when the file has no alpha.
        let mode: String
    }

    static let references: [Reference] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "webp-reference.tsv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, let frame = Int(f[1]), let width = Int(f[2]), let height = Int(f[3]),
                let duration = Int(f[4]), let hash = UInt64(f[5], radix: 16)
            else { return nil }
            return Reference(
                file: f[0], frame: frame, width: width, height: height, durationMilliseconds: duration,
                hash: hash, mode: f[6])
        }
    }()

    /// FNV-1a 64 of the RGBA8 bytes with every fully transparent pixel read as 0,0,0,0, as the script does.
    static func normalisedHash(_ pixels: PixelBuffer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let bytes = pixels.bytes
        for pixel in stride(from: 0, to: bytes.count, by: 4) {
            let transparent = bytes[pixel + 3] == 0
            for channel in 0..<4 {
                hash = (hash ^ UInt64(transparent ? 0 : bytes[pixel + channel])) &* 0x100_0000_01B3
            }
        }
        return hash
    }

    @Test func theReferenceFileIsReadable() {
        #expect(Self.references.count > 90)
        #expect(Set(Self.references.map(\.file)).count >= 36)
    }

    @Test func everyFrameMatchesTheReferencePixelForPixel() throws {
        guard let root = Corpus.root else { return }
        let files = Dictionary(grouping: Self.references, by: \.file)
        var mismatches: [String] = []
        for (file, frames) in files.sorted(by: { $0.key < $1.key }) {
            let data = try Data(contentsOf: root.appendingPathComponent("conformance/webp/\(file)"))
            // The reference is the stored pixels: Pillow does not apply EXIF orientation.
            let image = try WebPCoder().decode(data, options: DecodeOptions(applyOrientation: false))
            if image.frameCount != frames.count {
                mismatches.append("\(file): \(image.frameCount) frames, reference \(frames.count)")
            }
            if let expected = Corpus.entries.first(where: { $0.path == "conformance/webp/\(file)" })?.frameCount,
                expected != image.frameCount
            {
                mismatches.append("\(file): \(image.frameCount) frames, manifest \(expected)")
            }
            if !ImageFormat.isAnimatedWebP(data), let mode = frames.first?.mode,
                (image.pixels.layout == .rgb8) != (mode == "RGB")
            {
                mismatches.append("\(file): layout \(image.pixels.layout), Pillow mode \(mode)")
            }
            for reference in frames.sorted(by: { $0.frame < $1.frame }) where reference.frame < image.frameCount {
                let pixels = try image.frame(at: reference.frame).pixels.converted(to: .rgba8).packed()
                if (pixels.width, pixels.height) != (reference.width, reference.height) {
                    mismatches.append(
                        "\(file) #\(reference.frame): \(pixels.width)x\(pixels.height), reference \(reference.width)x\(reference.height)"
                    )
                } else if Self.normalisedHash(pixels) != reference.hash {
                    mismatches.append("\(file) #\(reference.frame): pixels differ")
                    Self.dump(pixels, name: "\(file)-\(reference.frame)")
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

    /// With `WEBP_REFERENCE_DUMP=<folder>`, writes a differing frame's raw RGBA8 bytes there so the
    /// difference can be studied against Pillow's frame (numpy.fromfile(...).reshape(h, w, 4)).
    static func dump(_ pixels: PixelBuffer, name: String) {
        guard let folder = ProcessInfo.processInfo.environment["WEBP_REFERENCE_DUMP"] else { return }
        try? Data(pixels.bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(name).rgba"))
    }
}
