/// Reading a VP8L (WebP lossless) bitstream as far as its Huffman codes, to learn how much memory
/// libwebp will allocate for them before libwebp sees the data (see `VP8LHuffmanMemory`).
///
/// The format is the WebP Lossless Bitstream Specification (RFC 9649): bits are read least significant
/// first, Huffman codes are canonical and their first bit read is the code's most significant bit.
enum VP8LBitstream {
    /// Why reading stopped early.
    enum ReadError: Error {
        /// The bytes end before the part being read.
        case needMoreData
        /// The bits break a rule of the format (libwebp rejects the same bits with a bitstream error).
        case malformed
    }

    /// Bits read least significant first from a byte buffer that the caller keeps alive.
    struct BitReader {
        let bytes: UnsafeRawBufferPointer
        private(set) var bitPosition: Int

        init(_ bytes: UnsafeRawBufferPointer, bitPosition: Int = 0) {
            self.bytes = bytes
            self.bitPosition = bitPosition
        }

        /// The next `count` bits (at most 32) as a number.
        mutating func read(_ count: Int) throws(ReadError) -> Int {
            var value = 0, got = 0, position = bitPosition
            while got < count {
                let byteIndex = position >> 3
                guard byteIndex < bytes.count else { throw .needMoreData }
                let offset = position & 7
                let taken = min(8 - offset, count - got)
                value |= ((Int(bytes[byteIndex]) >> offset) & ((1 << taken) - 1)) << got
                got += taken
                position += taken
            }
            bitPosition = position
            return value
        }
    }

    /// One canonical Huffman code, decoded bit by bit (the images read here are small sub-images).
    struct HuffmanCode {
        /// Number of codes of each length, 0...15.
        private var counts = [Int](repeating: 0, count: maxCodeLength + 1)
        /// Symbols ordered by code length, then by value: the canonical order.
        private var symbols: [Int] = []
        /// The symbol of a code with a single symbol, which takes no bits.
        private var only: Int?

        /// Longest code length the format allows.
        static let maxCodeLength = 15

        /// The code with these lengths (0: unused symbol). Throws `.malformed` when no symbol is used or the
        /// code is not complete, as libwebp's table builder does.
        init(lengths: [Int]) throws(ReadError) {
            for length in lengths where length > 0 { counts[length] += 1 }
            for length in 1...Self.maxCodeLength {
                for (symbol, symbolLength) in lengths.enumerated() where symbolLength == length {
                    symbols.append(symbol)
                }
            }
            if symbols.count == 1 { only = symbols[0]; return }
            guard !symbols.isEmpty else { throw .malformed }
            // A complete code uses every code of its longest length: the open slots reach zero.
            var open = 1
            for length in 1...Self.maxCodeLength {
                open = open * 2 - counts[length]
                guard open >= 0 else { throw .malformed }
            }
            guard open == 0 else { throw .malformed }
        }

        func decode(_ reader: inout BitReader) throws(ReadError) -> Int {
            if let only { return only }
            var code = 0, first = 0, index = 0
            for length in 1...Self.maxCodeLength {
                code |= try reader.read(1)
                let count = counts[length]
                if code - first < count { return symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw .malformed
        }
    }

    /// Symbols of the alphabets: 256 literal values, 24 length prefixes, 40 distance prefixes.
    static let literalCount = 256, lengthPrefixCount = 24, distancePrefixCount = 40
    /// The largest colour cache, 2^11 entries.
    static let maxColorCacheBits = 11
    /// The order the code-length code's own lengths are stored in.
    private static let codeLengthOrder = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    /// Code length assumed before any non-zero length was read (for repeat code 16).
    private static let defaultCodeLength = 8

    /// Reads one Huffman code over `alphabetSize` symbols (simple or length-coded).
    static func readCode(alphabetSize: Int, _ reader: inout BitReader) throws(ReadError) -> HuffmanCode {
        var lengths = [Int](repeating: 0, count: alphabetSize)
        if try reader.read(1) == 1 {
            let symbolCount = try reader.read(1) + 1
            let first = try reader.read(try reader.read(1) == 0 ? 1 : 8)
            if first < alphabetSize { lengths[first] = 1 }
            if symbolCount == 2 {
                let second = try reader.read(8)
                if second < alphabetSize { lengths[second] = 1 }
            }
            return try HuffmanCode(lengths: lengths)
        }
        var codeLengthLengths = [Int](repeating: 0, count: codeLengthOrder.count)
        let stored = try reader.read(4) + 4
        for i in 0..<stored { codeLengthLengths[codeLengthOrder[i]] = try reader.read(3) }
        let lengthCode = try HuffmanCode(lengths: codeLengthLengths)
        var remaining = alphabetSize
        if try reader.read(1) == 1 {
            let bits = 2 + 2 * (try reader.read(3))
            remaining = 2 + (try reader.read(bits))
            guard remaining <= alphabetSize else { throw .malformed }
        }
        var symbol = 0, previous = defaultCodeLength
        while symbol < alphabetSize && remaining > 0 {
            remaining -= 1
            let value = try lengthCode.decode(&reader)
            if value < 16 {
                lengths[symbol] = value
                symbol += 1
                if value != 0 { previous = value }
                continue
            }
            // 16: repeat the previous length 3-6 times; 17: 3-10 zeros; 18: 11-138 zeros.
            let (extraBits, offset) = value == 16 ? (2, 3) : value == 17 ? (3, 3) : (7, 11)
            let repeats = try reader.read(extraBits) + offset
            guard symbol + repeats <= alphabetSize else { throw .malformed }
            for _ in 0..<repeats { lengths[symbol] = value == 16 ? previous : 0; symbol += 1 }
        }
        return try HuffmanCode(lengths: lengths)
    }

    /// The five codes of one group: green + length prefixes + cache, red, blue, alpha, distance.
    struct CodeGroup {
        let green, red, blue, alpha, distance: HuffmanCode

        init(colorCacheBits: Int, _ reader: inout BitReader) throws(ReadError) {
            let cache = colorCacheBits > 0 ? 1 << colorCacheBits : 0
            green = try readCode(alphabetSize: literalCount + lengthPrefixCount + cache, &reader)
            red = try readCode(alphabetSize: literalCount, &reader)
            blue = try readCode(alphabetSize: literalCount, &reader)
            alpha = try readCode(alphabetSize: literalCount, &reader)
            distance = try readCode(alphabetSize: distancePrefixCount, &reader)
        }
    }

    /// Reads the optional colour cache size: its bits, 0 without a cache.
    static func readColorCacheBits(_ reader: inout BitReader) throws(ReadError) -> Int {
        guard try reader.read(1) == 1 else { return 0 }
        let bits = try reader.read(4)
        guard (1...maxColorCacheBits).contains(bits) else { throw .malformed }
        return bits
    }

    /// Decodes a sub-image (a transform's data or the entropy image): one code group, no transforms.
    static func readSubImage(width: Int, height: Int, _ reader: inout BitReader) throws(ReadError) -> [UInt32] {
        let cacheBits = try readColorCacheBits(&reader)
        let codes = try CodeGroup(colorCacheBits: cacheBits, &reader)
        let total = width * height
        var pixels = [UInt32](repeating: 0, count: total)
        var cache = [UInt32](repeating: 0, count: cacheBits > 0 ? 1 << cacheBits : 0)
        func remember(_ argb: UInt32) {
            // The colour cache's hash (RFC 9649, "Color Cache Coding").
            if cacheBits > 0 { cache[Int((argb &* 0x1e35_a7bd) >> UInt32(32 - cacheBits))] = argb }
        }
        var position = 0
        while position < total {
            let green = try codes.green.decode(&reader)
            if green < literalCount {
                let red = try codes.red.decode(&reader), blue = try codes.blue.decode(&reader)
                let alpha = try codes.alpha.decode(&reader)
                let argb = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
                pixels[position] = argb
                remember(argb)
                position += 1
            } else if green < literalCount + lengthPrefixCount {
                let length = try prefixValue(green - literalCount, &reader)
                let distanceCode = try prefixValue(try codes.distance.decode(&reader), &reader)
                let distance = planeDistance(distanceCode, width: width)
                guard distance <= position, length <= total - position else { throw .malformed }
                for i in position..<position + length {
                    pixels[i] = pixels[i - distance]
                    remember(pixels[i])
                }
                position += length
            } else {
                let key = green - literalCount - lengthPrefixCount
                guard key < cache.count else { throw .malformed }
                pixels[position] = cache[key]
                remember(cache[key])
                position += 1
            }
        }
        return pixels
    }

    /// A length or distance from its prefix symbol and extra bits.
    private static func prefixValue(_ prefix: Int, _ reader: inout BitReader) throws(ReadError) -> Int {
        if prefix < 4 { return prefix + 1 }
        let extraBits = (prefix - 2) >> 1
        let offset = (2 + (prefix & 1)) << extraBits
        return offset + (try reader.read(extraBits)) + 1
    }

    /// A distance code turned into a distance in pixels: codes 1...120 name nearby pixels by their
    /// (x, y) offset from the specification's table, larger codes are distances plus 120.
    private static func planeDistance(_ code: Int, width: Int) -> Int {
        guard code <= nearbyOffsets.count else { return code - nearbyOffsets.count }
        let packed = Int(nearbyOffsets[code - 1])
        let distance = (packed >> 4) * width + 8 - (packed & 0xf)
        return max(1, distance)
    }

    /// RFC 9649's 120 nearby (xi, yi) offsets for distance codes 1...120, packed as yi << 4 | (8 - xi).
    private static let nearbyOffsets: [UInt8] = [
        0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1a, 0x26, 0x2a, 0x38, 0x05, 0x37, 0x39, 0x15, 0x1b,
        0x36, 0x3a, 0x25, 0x2b, 0x48, 0x04, 0x47, 0x49, 0x14, 0x1c, 0x35, 0x3b, 0x46, 0x4a, 0x24, 0x2c, 0x58, 0x45,
        0x4b, 0x34, 0x3c, 0x03, 0x57, 0x59, 0x13, 0x1d, 0x56, 0x5a, 0x23, 0x2d, 0x44, 0x4c, 0x55, 0x5b, 0x33, 0x3d,
        0x68, 0x02, 0x67, 0x69, 0x12, 0x1e, 0x66, 0x6a, 0x22, 0x2e, 0x54, 0x5c, 0x43, 0x4d, 0x65, 0x6b, 0x32, 0x3e,
        0x78, 0x01, 0x77, 0x79, 0x53, 0x5d, 0x11, 0x1f, 0x64, 0x6c, 0x42, 0x4e, 0x76, 0x7a, 0x21, 0x2f, 0x75, 0x7b,
        0x31, 0x3f, 0x63, 0x6d, 0x52, 0x5e, 0x00, 0x74, 0x7c, 0x41, 0x4f, 0x10, 0x20, 0x62, 0x6e, 0x30, 0x73, 0x7d,
        0x51, 0x5f, 0x40, 0x72, 0x7e, 0x61, 0x6f, 0x50, 0x71, 0x7f, 0x60, 0x70,
    ]

    /// `size` divided by 2^`bits`, rounded up: the size of a sub-image whose pixels cover blocks.
    static func subsampled(_ size: Int, bits: Int) -> Int { (size + (1 << bits) - 1) >> bits }
}
