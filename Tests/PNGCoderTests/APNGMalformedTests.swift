import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Hostile and broken APNGs: typed errors, never a crash, limits before allocation.
@Suite("APNG malformed input")
struct APNGMalformedTests {
    typealias Chunks = [(type: String, data: [UInt8])]
    let coder = APNGCoder()

    static func threeFrames() throws -> Chunks {
        let frame = APNGFixture.Frame(pixels: TestPictures.gradient(width: 6, height: 4, layout: .rgba8))
        return try APNGFixture(width: 6, height: 4, frames: [frame, frame, frame]).chunks()
    }

    /// Rewrites the fcTL and fdAT sequence numbers as 0, 1, 2, ... in file order.
    static func renumber(_ chunks: inout Chunks) {
        var sequence: UInt32 = 0
        for index in chunks.indices where chunks[index].type == "fcTL" || chunks[index].type == "fdAT" {
            chunks[index].data.replaceSubrange(0..<4, with: PNGChunk.bigEndian(sequence))
            sequence += 1
        }
    }

    /// Decodes and composes every frame; any failure must be an ``ImageError``.
    func decodeEverything(_ data: Data, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        var all = options
        all.preloadAllFrames = true
        _ = try coder.decode(data, options: all)
    }

    func index(of type: String, _ occurrence: Int = 0, in chunks: Chunks) -> Int {
        chunks.indices.filter { chunks[$0].type == type }[occurrence]
    }

    /// Errors in the animation's own chunks make the file a still: its default image (frame 0 here), as
    /// the APNG specification asks ("revert to displaying the default image") and Chromium does.
    @Test func brokenAnimationChunksShowTheDefaultImage() throws {
        let good = try Self.threeFrames()
        var cases: [(String, Chunks)] = []
        func mutated(_ name: String, _ change: (inout Chunks) -> Void) {
            var chunks = good
            change(&chunks)
            cases.append((name, chunks))
        }
        mutated("fdAT sequence number skips") { $0[index(of: "fdAT", in: $0)].data[3] += 1 }
        mutated("fcTL sequence number repeats") { $0[index(of: "fcTL", 1, in: $0)].data[3] = 0 }
        mutated("frame outside the canvas") { $0[index(of: "fcTL", 1, in: $0)].data[15] = 1 }  // x_offset 1, width 6
        mutated("frame taller than the canvas") { $0[index(of: "fcTL", 2, in: $0)].data[11] = 5 }
        mutated("zero-width frame") { $0[index(of: "fcTL", 1, in: $0)].data[7] = 0 }
        mutated("a middle frame without fdAT") { chunks in
            chunks.remove(at: index(of: "fdAT", in: chunks))
            Self.renumber(&chunks)
        }
        mutated("the last frame without fdAT") { chunks in
            chunks.remove(at: index(of: "fdAT", 1, in: chunks))
            Self.renumber(&chunks)
        }
        mutated("fewer frames than acTL says") { $0[index(of: "acTL", in: $0)].data[3] = 4 }
        mutated("more frames than acTL says") { $0[index(of: "acTL", in: $0)].data[3] = 2 }
        mutated("acTL with no frames") { $0[index(of: "acTL", in: $0)].data[3] = 0 }
        mutated("two acTL") { $0.insert($0[1], at: 1) }
        mutated("unknown dispose op") { $0[index(of: "fcTL", 1, in: $0)].data[24] = 3 }
        mutated("unknown blend op") { $0[index(of: "fcTL", 1, in: $0)].data[25] = 2 }
        mutated("short fcTL") { $0[index(of: "fcTL", 1, in: $0)].data.removeLast() }
        mutated("fdAT without sequence number") { $0[index(of: "fdAT", in: $0)].data = [0, 0] }
        mutated("fdAT before IDAT") { chunks in
            chunks.swapAt(index(of: "IDAT", in: chunks), index(of: "fdAT", in: chunks))
        }
        mutated("fcTL before acTL") { chunks in chunks.swapAt(1, 2) }
        mutated("default frame not covering the canvas") { $0[index(of: "fcTL", in: $0)].data[7] = 5 }
        mutated("IDAT after the frames") { chunks in
            chunks.insert(chunks[index(of: "IDAT", in: chunks)], at: chunks.count - 1)
        }
        mutated("fcTL with a bad CRC") { _ in }  // corrupted below, after assembly
        let expected = TestPictures.gradient(width: 6, height: 4, layout: .rgba8)
        for (name, chunks) in cases {
            var data = APNGFixture.assemble(chunks)
            if name == "fcTL with a bad CRC" {
                var bytes = [UInt8](data)
                let fcTL = try #require(findType("fcTL", occurrence: 1, in: bytes))
                bytes[fcTL + 4 + 26] ^= 0x01  // the CRC's first byte
                data = Data(bytes)
            }
            do {
                let image = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
                #expect(!image.isAnimated, "\(name)")
                #expect(image.pixels.converted(to: .rgba8).bytes == expected.bytes, "\(name)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    /// Errors a still PNG decoder fails on too stay errors: a typed `.badImageData`.
    @Test func brokenCriticalChunksFailWithBadImageData() throws {
        let good = try Self.threeFrames()
        let cases: [(String, Chunks)] = [
            ("no IDAT", good.filter { $0.type != "IDAT" }),
            ("only headers", Array(good.prefix(2)) + [("IEND", [])]),
            (
                "unknown critical chunk",
                {
                    var chunks = good; chunks.insert(("ABCD", [1, 2, 3]), at: chunks.count - 1); return chunks
                }()
            ),
            (
                "IDAT is not deflate",
                {
                    var chunks = good; chunks[index(of: "IDAT", in: chunks)].data = [UInt8](repeating: 0xAB, count: 20);
                    return chunks
                }()
            ),
        ]
        for (name, chunks) in cases {
            do {
                try decodeEverything(APNGFixture.assemble(chunks))
                Issue.record("\(name): decoded")
            } catch {
                if case .badImageData = error {} else { Issue.record("\(name): \(error)") }
            }
        }
    }

    /// A later frame whose data is not deflate ends the animation at the frame before it (Core's rule, as
    /// Chromium does); the lazy and the eager decode agree.
    @Test func aDamagedLaterFrameEndsTheAnimationBeforeIt() throws {
        var chunks = try Self.threeFrames()
        let at = index(of: "fdAT", 1, in: chunks)  // frame 2's data
        chunks[at].data = Array(chunks[at].data.prefix(4)) + [UInt8](repeating: 0xAB, count: 20)
        let data = APNGFixture.assemble(chunks)
        let eager = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(eager.frameCount == 2)
        let lazy = try coder.decode(data, options: DecodeOptions())
        #expect(lazy.frameCount == 3)  // declared; nothing decoded yet
        var seen = 0
        try #require(lazy.animation).forEachFrame { _ in seen += 1 }
        #expect(seen == 2 && lazy.frameCount == 2)
        #expect(try lazy.frame(at: 2).pixels.bytes == eager.frame(at: 1).pixels.bytes)
    }

    /// A bad CRC on an `fdAT` damages only its frame (Chromium does not even check it): the frames before
    /// it play.
    @Test func aBadFDATCRCDamagesOnlyItsFrame() throws {
        var bytes = [UInt8](try APNGFixture.assemble(Self.threeFrames()))
        let fdAT = try #require(findType("fdAT", in: bytes))
        bytes[fdAT + 8] ^= 0x01  // inside frame 1's fdAT data: its CRC no longer matches
        let image = try coder.decode(Data(bytes), options: DecodeOptions(preloadAllFrames: true))
        #expect(image.frameCount == 1)
    }

    /// A bad CRC in a critical chunk (here the default image's IDAT) fails, as in libpng and browsers.
    @Test func aBadCriticalChunkCRCIsRejected() throws {
        var bytes = [UInt8](try APNGFixture.assemble(Self.threeFrames()))
        let idat = try #require(findType("IDAT", in: bytes))
        bytes[idat + 8] ^= 0x01
        #expect(throws: ImageError.self) { try decodeEverything(Data(bytes)) }
    }

    func findType(_ type: String, occurrence: Int, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        let all = (0..<(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == pattern }
        return occurrence < all.count ? all[occurrence] : nil
    }

    func findType(_ type: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        return (0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == pattern }
    }

    @Test func everyTruncationFailsTypedAndPartialImagesKeepWholeFrames() throws {
        let data = try APNGFixture.assemble(Self.threeFrames())
        for length in 0..<data.count {
            #expect(throws: ImageError.self, "\(length) bytes") { try decodeEverything(data.prefix(length)) }
            // With partial images allowed, whatever comes back is whole frames, marked incomplete.
            if let image = try? coder.decode(
                data.prefix(length), options: DecodeOptions(preloadAllFrames: true, allowPartialImage: true))
            {
                #expect(image.isIncomplete || !coder.canDecode(data.prefix(length)), "\(length) bytes")
                #expect(image.frameCount <= 2)
            }
        }
        // Cut inside the third frame's data: the first two frames remain.
        let bytes = [UInt8](data)
        let lastFDAT = try #require((0..<(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == Array("fdAT".utf8) })
        let partial = try coder.decode(data.prefix(lastFDAT + 20), options: DecodeOptions(allowPartialImage: true))
        #expect(partial.isIncomplete && partial.frameCount == 2)
    }

    @Test func flippedBytesNeverCrash() throws {
        let data = [UInt8](try APNGFixture.mixedOps.data())
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<300 {
            var bytes = data
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do { try decodeEverything(Data(bytes)) } catch {}  // typed errors are fine; traps are not
        }
    }

    @Test func theCanvasIsCheckedAgainstThePixelLimitFirst() throws {
        var chunks: Chunks = try Self.threeFrames()
        chunks[0].data = PNGChunk.bigEndian(60000) + PNGChunk.bigEndian(60000) + [8, 6, 0, 0, 0]
        #expect(
            throws: ImageError.imageTooLarge(width: 60000, height: 60000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try coder.decode(APNGFixture.assemble(chunks), options: DecodeOptions())
        }
        let small = try APNGFixture.assemble(Self.threeFrames())
        #expect(throws: ImageError.imageTooLarge(width: 6, height: 4, limit: 20)) {
            try coder.decode(small, options: DecodeOptions(maxPixelCount: 20))
        }
        #expect(throws: ImageError.imageTooLarge(width: 6, height: 4, limit: 20)) {
            try coder.makeFrameSource(for: small, options: DecodeOptions(maxPixelCount: 20))
        }
    }
}
