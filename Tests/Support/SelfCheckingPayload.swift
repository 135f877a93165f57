import Foundation

/// Bytes that prove they are whole: a header with the length and a seed, then a pattern made from the
/// seed. A reader that sees part of one write, or a mix of two, finds a mismatch. Used by the disk cache's
/// concurrency tests and its second-process helper.
public enum SelfCheckingPayload {
    /// Header: 8 bytes of length, 8 bytes of seed, both little-endian.
    static let headerSize = 16

    /// A payload for `seed`, between 1 and about 30 KB long, the length depending on the seed.
    public static func make(seed: UInt64) -> Data {
        let length = headerSize + 1_000 + Int(seed % 29) * 1_000
        var bytes = [UInt8](repeating: 0, count: length)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: UInt64(length) >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: seed >> (8 * UInt64(i)))
        }
        for i in headerSize..<length { bytes[i] = pattern(seed: seed, index: i) }
        return Data(bytes)
    }

    /// Whether `data` is one whole payload.
    public static func isValid(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= headerSize else { return false }
        var length: UInt64 = 0
        var seed: UInt64 = 0
        for i in 0..<8 {
            length |= UInt64(bytes[i]) << (8 * UInt64(i))
            seed |= UInt64(bytes[8 + i]) << (8 * UInt64(i))
        }
        guard length == UInt64(bytes.count) else { return false }
        for i in headerSize..<bytes.count where bytes[i] != pattern(seed: seed, index: i) { return false }
        return true
    }

    private static func pattern(seed: UInt64, index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: seed &* 31 &+ UInt64(index) &* 7)
    }
}
