/// A zlib stream written by hand: one deflate block with the fixed Huffman codes (RFC 1951, 3.2.6), with
/// long runs coded as back-references, so a generated file of large images stays a few hundred bytes per
/// frame without any compression library.
public enum FixedHuffmanDeflate {
    /// Longest back-reference deflate allows.
    private static let maxMatch = 258
    /// Shortest back-reference deflate allows.
    private static let minMatch = 3
    /// Base lengths of length codes 257...285 and their extra bits (RFC 1951, 3.2.5).
    private static let lengthBases: [(base: Int, extra: Int)] = {
        var table: [(Int, Int)] = []
        var base = 3
        for code in 0..<28 {
            let extra = code < 8 ? 0 : (code - 4) / 4
            table.append((base, extra))
            base += 1 << extra
        }
        table.append((258, 0))
        return table
    }()
    /// Base distances of distance codes 0...29 and their extra bits.
    private static let distanceBases: [(base: Int, extra: Int)] = {
        var table: [(Int, Int)] = []
        var base = 1
        for code in 0..<30 {
            let extra = code < 4 ? 0 : (code - 2) / 2
            table.append((base, extra))
            base += 1 << extra
        }
        return table
    }()

    /// A zlib stream (header, one fixed-Huffman block, Adler-32) of `raw`. Runs that repeat the bytes
    /// `distances` back (1 for a run of one byte; a row's length for identical rows) become matches.
    public static func zlib(_ raw: [UInt8], distances: [Int] = [1]) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        var position = 0
        while position < raw.count {
            var best = (length: 0, distance: 0)
            for distance in distances where distance <= position {
                var length = 0
                while length < maxMatch, position + length < raw.count,
                    raw[position + length] == raw[position + length - distance]
                {
                    length += 1
                }
                if length > best.length { best = (length, distance) }
            }
            if best.length >= minMatch {
                writeMatch(length: best.length, distance: best.distance, to: &bits)
                position += best.length
            } else {
                writeSymbol(Int(raw[position]), to: &bits)
                position += 1
            }
        }
        writeSymbol(256, to: &bits)  // end of block
        var adler = Adler32()
        adler.update(raw)
        let checksum = adler.value
        return [0x78, 0x01] + bits.bytes
            + [
                UInt8(checksum >> 24), UInt8(checksum >> 16 & 0xFF), UInt8(checksum >> 8 & 0xFF),
                UInt8(checksum & 0xFF),
            ]
    }

    /// A literal/length symbol with its fixed Huffman code (written most significant bit first).
    private static func writeSymbol(_ symbol: Int, to bits: inout BitWriter) {
        switch symbol {
        case 0...143: bits.writeHuffman(0x30 + symbol, count: 8)
        case 144...255: bits.writeHuffman(0x190 + symbol - 144, count: 9)
        case 256...279: bits.writeHuffman(symbol - 256, count: 7)
        default: bits.writeHuffman(0xC0 + symbol - 280, count: 8)
        }
    }

    private static func writeMatch(length: Int, distance: Int, to bits: inout BitWriter) {
        let lengthCode = lengthBases.lastIndex { $0.base <= length }!
        writeSymbol(257 + lengthCode, to: &bits)
        bits.write(length - lengthBases[lengthCode].base, count: lengthBases[lengthCode].extra)
        let distanceCode = distanceBases.lastIndex { $0.base <= distance }!
        bits.writeHuffman(distanceCode, count: 5)
        bits.write(distance - distanceBases[distanceCode].base, count: distanceBases[distanceCode].extra)
    }

    /// Packs bits least significant first, as deflate does.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 0  // bits used in the last byte

        mutating func write(_ value: Int, count: Int) {
            for bit in 0..<count { append(value >> bit & 1) }
        }

        /// Huffman codes are packed starting with their most significant bit.
        mutating func writeHuffman(_ code: Int, count: Int) {
            for bit in stride(from: count - 1, through: 0, by: -1) { append(code >> bit & 1) }
        }

        private mutating func append(_ bit: Int) {
            if used == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8(bit) << used
            used = (used + 1) % 8
        }
    }

    /// zlib's checksum of the uncompressed data.
    private struct Adler32 {
        private var a: UInt32 = 1, b: UInt32 = 0
        private static let modulus: UInt32 = 65521

        mutating func update(_ bytes: [UInt8]) {
            for byte in bytes {
                a = (a + UInt32(byte)) % Self.modulus
                b = (b + a) % Self.modulus
            }
        }

        var value: UInt32 { b << 16 | a }
    }
}
