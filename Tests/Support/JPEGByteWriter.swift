import Foundation

/// Writes JPEG marker segments and Huffman-coded bits by hand, for the generators in
/// `HostileJPEGFiles.swift` (no libjpeg needed, so a script can make the files too).
struct JPEGByteWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits not yet written, most significant first, and how many there are (fewer than 8 after a write).
    private var pendingBits: UInt32 = 0
    private var pendingCount = 0

    /// A marker with no payload (SOI, EOI).
    mutating func marker(_ code: UInt8) {
        precondition(pendingCount == 0, "entropy-coded bits must be flushed before a marker")
        bytes += [0xFF, code]
    }

    /// A marker segment: the marker, its length (which counts itself), then the payload.
    mutating func segment(_ code: UInt8, _ payload: [UInt8]) {
        marker(code)
        let length = payload.count + 2
        precondition(length <= 0xFFFF, "segment too long")
        bytes += [UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A DHT segment defining one table: `lengths[i]` codes of length i + 1, for `symbols` in order.
    mutating func huffmanTable(isAC: Bool, id: UInt8, lengths: [UInt8], symbols: [UInt8]) {
        precondition(lengths.count == 16 && Int(lengths.reduce(0, +)) == symbols.count)
        segment(0xC4, [(isAC ? 0x10 : 0x00) | id] + lengths + symbols)
    }

    /// Appends the low `count` bits of `value` to the entropy-coded data, most significant first, with a
    /// 0x00 stuffed after every 0xFF byte as the format requires.
    mutating func bits(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            pendingBits = pendingBits << 1 | UInt32((value >> shift) & 1)
            pendingCount += 1
            if pendingCount == 8 { emitPendingByte() }
        }
    }

    /// Ends the entropy-coded data: pads the last byte with one bits, as encoders do.
    mutating func flushBits() {
        guard pendingCount > 0 else { return }
        bits((1 << (8 - pendingCount)) - 1, count: 8 - pendingCount)
    }

    private mutating func emitPendingByte() {
        let byte = UInt8(pendingBits & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0x00) }
        pendingBits = 0
        pendingCount = 0
    }
}
