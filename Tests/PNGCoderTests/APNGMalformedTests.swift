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

    @Test func brokenStructuresFailWithBadImageData() throws {
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
        mutated("fdAT before IDAT") { chunks in chunks.swapAt(index(of: "IDAT", in: chunks), index(of: "fdAT", in: chunks)) }
        mutated("fcTL before acTL") { chunks in chunks.swapAt(1, 2) }
        mutated("default frame not covering the canvas") { $0[index(of: "fcTL", in: $0)].data[7] = 5 }
        mutated("IDAT after the frames") { chunks in chunks.insert(chunks[index(of: "IDAT", in: chunks)], at: chunks.count - 1) }
        mutated("no IDAT") { $0.removeAll { $0.type == "IDAT" } }
        mutated("only headers") { $0 = Array($0.prefix(2)) + [("IEND", [])] }
        mutated("unknown critical chunk") { $0.insert(("ABCD", [1, 2, 3]), at: $0.count - 1) }
        mutated("fdAT data is not deflate") { chunks in
            let at = index(of: "fdAT", in: chunks)
            chunks[at].data = Array(chunks[at].data.prefix(4)) + [UInt8](repeating: 0xAB, count: 20)
        }
        for (name, chunks) in cases {
            let data = APNGFixture.assemble(chunks)
            #expect(throws: ImageError.self, "\(name)") { try decodeEverything(data) }
            do { try decodeEverything(data) } catch {
                if case .badImageData = error {} else { Issue.record("\(name): \(error)") }
            }
        }
    }

    @Test func aBadChunkCRCIsRejected() throws {
        var bytes = [UInt8](try APNGFixture.assemble(Self.threeFrames()))
        let fdAT = try #require(findType("fdAT", in: bytes))
        bytes[fdAT + 8] ^= 0x01  // inside the fdAT data: its CRC no longer matches
        #expect(throws: ImageError.self) { try decodeEverything(Data(bytes)) }
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
            if let image = try? coder.decode(data.prefix(length), options: DecodeOptions(preloadAllFrames: true, allowPartialImage: true)) {
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
        #expect(throws: ImageError.imageTooLarge(width: 60000, height: 60000, limit: DecodeOptions.defaultMaxPixelCount)) {
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
