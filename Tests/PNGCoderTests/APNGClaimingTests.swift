import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Which coder gets which PNG, incremental downloads, and the corpus.
@Suite("APNG claiming and corpus")
struct APNGClaimingTests {
    let coder = APNGCoder()

    @Test func onlyPNGsWithACTLBeforeIDATAreClaimed() throws {
        let plain = try PNGCoder().encode(Image(pixels: TestPictures.quadrants()), as: .png, options: EncodeOptions())
        let animated = try APNGFixture.mixedOps.data()
        #expect(!coder.canDecode(plain) && coder.canDecode(animated))
        #expect(!coder.canDecode(Data()) && !coder.canDecode(Data([0x89, 0x50])))
        // acTL after IDAT is not an APNG.
        var chunks = APNGFixture.parseChunks(plain)
        chunks.insert(("acTL", PNGChunk.bigEndian(1) + PNGChunk.bigEndian(0)), at: chunks.count - 1)
        #expect(!coder.canDecode(APNGFixture.assemble(chunks)))
        // A plain PNG handed to the APNG coder anyway decodes as a still.
        #expect(
            try coder.decode(plain, options: DecodeOptions()).pixels
                == (try PNGCoder().decode(plain, options: DecodeOptions()).pixels))
        #expect(throws: ImageError.self) { try coder.makeFrameSource(for: plain, options: DecodeOptions()) }

        let manager = ImageCodersManager(coders: [PNGCoder(), APNGCoder()])
        #expect(manager.coder(forDecoding: animated) is APNGCoder)
        #expect(manager.coder(forDecoding: plain) is PNGCoder)
        #expect(try manager.decode(animated, options: DecodeOptions()).frameCount == APNGFixture.mixedOps.frames.count)
    }

    @Test(arguments: [1, 37, 4096])
    func incrementalDownloadsEndAsAnimationsOrStills(chunk: Int) throws {
        let animated = try APNGFixture.mixedOps.data()
        let (image, _) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), animated, chunk: chunk)
        #expect(image.isAnimated && image.frameCount == APNGFixture.mixedOps.frames.count)

        let plain = try PNGCoder().encode(
            Image(pixels: TestPictures.gradient(width: 90, height: 60, layout: .rgba8)),
            as: .png, options: EncodeOptions())
        let (still, partials) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), plain, chunk: chunk)
        let expected = try PNGCoder().decode(plain, options: DecodeOptions()).pixels
        #expect(!still.isAnimated && still.pixels == expected)
        if chunk < plain.count / 2 { #expect(!partials.isEmpty) }
    }

    /// Pillow counts a default image that is not part of the animation as an extra frame 0.
    static func pillowFrameCount(_ image: Image, note: String) -> Int {
        image.frameCount + (note.contains("not part of the animation") ? 1 : 0)
    }

    @Test func corpusAPNGsDecodeWithTheManifestsFrameCountAndSize() throws {
        // optional; the fixtures above cover the rest
        guard Corpus.root != nil, !Corpus.entries.isEmpty else { return }
        var animatedSeen = 0, plainSeen = 0
        for entry in Corpus.entries where entry.format == "png" {
            let data = try Data(contentsOf: entry.url)
            guard coder.canDecode(data) else {
                if entry.expectDecode { plainSeen += 1 }
                continue
            }
            guard entry.expectDecode else {
                #expect(throws: ImageError.self, "\(entry.path)") {
                    try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
                }
                continue
            }
            animatedSeen += 1
            let image = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
            #expect(image.width == entry.width && image.height == entry.height, "\(entry.path)")
            #expect(
                Self.pillowFrameCount(image, note: entry.note) == entry.frameCount,
                "\(entry.path): \(image.frameCount) frames")
        }
        #expect(animatedSeen >= 8 && plainSeen > 100)
    }

    @Test func corpusWPTDisposeFilesComposeAsBrowsersDo() throws {
        guard let root = Corpus.root, !Corpus.entries.isEmpty else { return }
        // Both files: frame 0 opaque red; frame 1 (blend source) half-transparent green, half-transparent
        // blue and a transparent pixel, disposed to background or to previous; frame 2 draws transparent,
        // transparent, white with blend over.
        let cases: [(String, [[UInt8]])] = [
            (
                "imagers-apng-wpt-dispose-background-blend-source.png",
                [[0, 0, 0, 0], [0, 0, 0, 0], [255, 255, 255, 255]]
            ),
            (
                "imagers-apng-wpt-dispose-previous-blend-source.png",
                [[255, 0, 0, 255], [255, 0, 0, 255], [255, 255, 255, 255]]
            ),
        ]
        for (name, lastFrame) in cases {
            let image = try coder.decode(
                try Data(contentsOf: root.appendingPathComponent("conformance/png/\(name)")),
                options: DecodeOptions())
            let frames = try (0..<image.frameCount).map { try image.frame(at: $0).pixels }
            let rows = frames.map { frame in
                (0..<frame.width).map { x -> [UInt8] in
                    let p = frame.rgba(x: x, y: 0)
                    return [p.r, p.g, p.b, p.a]
                }
            }
            #expect(rows.count == 3)
            #expect(rows.first == [[255, 0, 0, 255], [255, 0, 0, 255], [255, 0, 0, 255]], "\(name)")
            #expect(rows.dropFirst().first == [[0, 255, 0, 128], [0, 0, 255, 128], [0, 0, 0, 0]], "\(name)")
            #expect(rows.last == lastFrame, "\(name)")
        }
        // WPT's region tests end all green when dispose worked; blend source with transparent pixels
        // ends fully transparent.
        let uniform: [(String, [UInt8])] = [
            ("imagers-apng-wpt-fcTL-dispose-in-region-none.png", [0, 255, 0, 255]),
            ("imagers-apng-wpt-fcTL-dispose-in-region-previous.png", [0, 255, 0, 255]),
            ("imagers-apng-wpt-fcTL-blend-source-transparent.png", [0, 0, 0, 0]),
        ]
        for (name, color) in uniform {
            let image = try coder.decode(
                try Data(contentsOf: root.appendingPathComponent("conformance/png/\(name)")),
                options: DecodeOptions())
            let last = try image.frame(at: image.frameCount - 1).pixels
            #expect(
                last.bytes == Array([[UInt8]](repeating: color, count: last.width * last.height).joined()), "\(name)")
        }
    }
}
