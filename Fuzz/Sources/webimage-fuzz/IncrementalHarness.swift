import Foundation
import WebImageCore

/// Feeds the input to an incremental decoder in chunks of varying size, as a download would, asking for a
/// partial image now and then, and finishes it.
enum IncrementalHarness {
    static func run(_ data: Data, coder: any ProgressiveImageCoder, options: DecodeOptions) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var chunks = ChunkSizes(for: data)
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + chunks.next())
            do {
                try decoder.append(data.subdata(in: offset..<end))
            } catch {
                return
            }
            if chunks.wantsPartialImage(), let partial = decoder.partialImage() {
                FrameCheck.touch(partial.pixels)
            }
            offset = end
        }
        if let image = try? decoder.finish() { FrameCheck.touch(image.pixels) }
    }
}

/// Chunk sizes derived from the input's bytes: a hash of the input seeds a small generator, so one input
/// is always cut the same way (a crasher reproduces) and every mutation cuts it differently.
struct ChunkSizes {
    /// Largest chunk: a typical network read.
    static let largestChunk = 16 * 1024
    /// Chunks up to this size are drawn as often as larger ones, so byte-at-a-time paths (a marker or
    /// chunk header split across appends) are hit often.
    static let smallChunk = 16

    private var state: UInt64

    init(for data: Data) {
        // FNV-1a over the input.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        state = hash | 1
    }

    /// The next chunk size, at least 1.
    mutating func next() -> Int {
        let value = step()
        let limit = value & 1 == 0 ? Self.smallChunk : Self.largestChunk
        return Int((value >> 1) % UInt64(limit)) + 1
    }

    /// True for about one append in four.
    mutating func wantsPartialImage() -> Bool { step() % 4 == 0 }

    /// xorshift64*.
    private mutating func step() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_f491_4f6c_dd1d
    }
}
