/// CRC-32 as PNG uses it (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320, reflected), table-driven.
///
/// Our own rather than zlib's `crc32`: zlib is linked only indirectly through libpng, and the
/// APNG reader must check and write chunk CRCs itself (libpng never sees the original fdAT chunks).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    /// The CRC of `bytes`, continuing from `crc` (the CRC of the bytes before them; 0 to start).
    static func checksum(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        }
        return ~value
    }
}
