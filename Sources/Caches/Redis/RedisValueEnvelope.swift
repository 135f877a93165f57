internal import CRedis
import Foundation

/// The bytes stored in Redis for one entry: a header with both lengths and a checksum, then the image
/// bytes, then the extended data (the HTTP validators). A value that fails any check (a truncated write,
/// another program's value under our key, a bit flip) is refused, so the cache serves it as a miss and
/// deletes it.
///
/// Layout (big-endian): magic `WIR2` (4 bytes) · image length (4) · extended length (4) · CRC-32C of the
/// image and extended bytes (4) · image bytes · extended bytes. Values of the first layout, `WIR1`, the
/// same with zlib's CRC-32, are still read: CRC-32C has a CPU instruction, and checking it on every hit
/// costs a quarter of what CRC-32 did.
enum RedisValueEnvelope {
    /// Identifies the layout written; a new layout gets a new magic.
    static let magic: [UInt8] = Array("WIR2".utf8)
    /// The first layout, read but no longer written.
    static let crc32Magic: [UInt8] = Array("WIR1".utf8)
    /// Magic plus three 32-bit fields.
    static let headerSize = 16

    /// The stored value for `data` and `extendedData`; nil when a length does not fit 32 bits.
    static func encode(_ data: Data, extendedData: Data?) -> Data? {
        let extended = extendedData ?? Data()
        guard data.count <= Int(UInt32.max), extended.count <= Int(UInt32.max) else { return nil }
        var crc = checksum(0, data, zlibCRC32: false)
        crc = checksum(crc, extended, zlibCRC32: false)
        var value = Data(capacity: headerSize + data.count + extended.count)
        value.append(contentsOf: magic)
        append(UInt32(data.count), to: &value)
        append(UInt32(extended.count), to: &value)
        append(crc, to: &value)
        value.append(data)
        value.append(extended)
        return value
    }

    /// The image bytes and extended data (nil when empty) of a stored value; nil when it fails a check.
    static func decode(_ value: Data) -> (data: Data, extendedData: Data?)? {
        value.withUnsafeBytes { bytes in
            decode(bytes) { Data(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
        }
    }

    /// The same for a reply still in hiredis's buffer: the image bytes are not copied, and the CRC-32C the
    /// connection computed as the reply came in (``RedisReplyBytes/checksum``, of the bytes after the
    /// header) is used instead of a second pass.
    static func decode(_ value: RedisReplyBytes) -> (data: Data, extendedData: Data?)? {
        value.withBytes { bytes in decode(bytes, knownCRC32C: value.checksum) { value.data($0) } }
    }

    /// Checks `value` and hands the image and extended byte ranges to `slice`. `knownCRC32C`, when given,
    /// is the CRC-32C of everything after the header.
    private static func decode(
        _ value: UnsafeRawBufferPointer, knownCRC32C: UInt32? = nil, slice: (Range<Int>) -> Data
    ) -> (data: Data, extendedData: Data?)? {
        guard value.count >= headerSize else { return nil }
        let zlibCRC32 = value.prefix(4).elementsEqual(crc32Magic)
        guard zlibCRC32 || value.prefix(4).elementsEqual(magic) else { return nil }
        let dataLength = Int(readUInt32(value, at: 4))
        let extendedLength = Int(readUInt32(value, at: 8))
        let storedCRC = readUInt32(value, at: 12)
        guard value.count == headerSize + dataLength + extendedLength else { return nil }
        let dataRange = headerSize..<(headerSize + dataLength)
        let extendedRange = dataRange.upperBound..<value.count
        let crc: UInt32
        if !zlibCRC32, let knownCRC32C {
            crc = knownCRC32C
        } else {
            crc = checksum(
                checksum(0, UnsafeRawBufferPointer(rebasing: value[dataRange]), zlibCRC32: zlibCRC32),
                UnsafeRawBufferPointer(rebasing: value[extendedRange]), zlibCRC32: zlibCRC32)
        }
        guard crc == storedCRC else { return nil }
        return (slice(dataRange), extendedRange.isEmpty ? nil : slice(extendedRange))
    }

    private static func checksum(_ crc: UInt32, _ bytes: Data, zlibCRC32: Bool) -> UInt32 {
        bytes.withUnsafeBytes { checksum(crc, $0, zlibCRC32: zlibCRC32) }
    }

    /// CRC-32C, or zlib's CRC-32 for values of the `WIR1` layout.
    private static func checksum(_ crc: UInt32, _ buffer: UnsafeRawBufferPointer, zlibCRC32: Bool) -> UInt32 {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return crc }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        return zlibCRC32 ? credis_crc32(crc, bytes, buffer.count) : credis_crc32c(crc, bytes, buffer.count)
    }

    private static func append(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
