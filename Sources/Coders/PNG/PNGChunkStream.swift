/// One chunk of a PNG file, located in the file's bytes (nothing is copied).
struct PNGChunkLocation: Sendable {
    /// The four-letter chunk type ("IHDR", "fdAT", ...).
    let type: String
    /// Where the chunk begins (its length field).
    let start: Int
    /// Where the chunk's data lies.
    let data: Range<Int>
    /// Whether the stored CRC matches the type and data.
    let crcMatches: Bool

    /// Ancillary chunks have a lowercase first letter; a decoder may skip those it does not know.
    var isCritical: Bool { type.utf8.first.map { $0 & 0x20 == 0 } ?? true }
}

/// Reads and writes the chunk layer of PNG files: `length, type, data, CRC-32` after the signature.
enum PNGChunkStream {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Length, type and CRC: twelve bytes around each chunk's data.
    static let overhead = 12
    /// The spec's limit on a chunk length (2^31 - 1), which also keeps offsets far from overflow.
    static let maxChunkLength = 0x7FFF_FFFF

    /// What reading chunks from a byte array found.
    enum Step {
        /// A whole chunk.
        case chunk(PNGChunkLocation)
        /// The bytes end at this offset, possibly in the middle of a chunk.
        case end
        /// A chunk length over the spec's limit: the stream is garbage from here.
        case malformed(String)
    }

    /// The chunk starting at `offset` in `bytes`; `verifyCRC` false skips the CRC (sniffing).
    static func chunk(in bytes: [UInt8], at offset: Int, verifyCRC: Bool = true) -> Step {
        guard offset >= 0, bytes.count - offset >= overhead else { return .end }
        let length = Int(readUInt32(bytes, at: offset))
        guard length <= maxChunkLength else { return .malformed("chunk length \(length) is over the limit") }
        guard bytes.count - offset - overhead >= length else { return .end }
        let typeBytes = bytes[(offset + 4)..<(offset + 8)]
        let data = (offset + 8)..<(offset + 8 + length)
        var crcMatches = true
        if verifyCRC {
            let stored = readUInt32(bytes, at: data.upperBound)
            crcMatches = CRC32.checksum(bytes[(offset + 4)..<data.upperBound]) == stored
        }
        return .chunk(
            PNGChunkLocation(
                type: String(decoding: typeBytes, as: UTF8.self), start: offset, data: data,
                crcMatches: crcMatches))
    }

    /// A big-endian 32-bit value; the caller has checked that four bytes are there.
    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// A big-endian 16-bit value; the caller has checked that two bytes are there.
    static func readUInt16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// Appends `value` big-endian.
    static func append(_ value: UInt32, to output: inout [UInt8]) {
        output += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// Appends `value` big-endian.
    static func append(_ value: UInt16, to output: inout [UInt8]) {
        output += [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    /// Appends a whole chunk (length, type, `data`, CRC) to `output`.
    static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to output: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        append(UInt32(data.count), to: &output)
        output += typeBytes
        output += data
        append(CRC32.checksum(data, continuing: CRC32.checksum(typeBytes[...])), to: &output)
    }
}
