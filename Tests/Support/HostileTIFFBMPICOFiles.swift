import Foundation
import WebImageCore

/// Hostile TIFF, BMP and ICO files: valid structures that cost a decoder far more than their size.
extension HostileFiles {
    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }

    /// An 8-bit RLE BMP of `size` whose pixel data is only the end-of-bitmap code: 60 bytes for a whole
    /// canvas (transparent, since the stream draws nothing) that the decoder must allocate and fill.
    public static func emptyRLEBMP(size: PixelSize) -> Data {
        let palette: [UInt8] = [0, 0, 0, 0, 255, 255, 255, 0]
        let pixels: [UInt8] = [0, 1]
        var dib = le32(40) + le32(size.width) + le32(size.height) + le16(1) + le16(8)
        dib += le32(1) + le32(pixels.count) + le32(2835) + le32(2835) + le32(2) + le32(0)
        let offset = 14 + dib.count + palette.count
        return Data([0x42, 0x4D] + le32(offset + pixels.count) + le32(0) + le32(offset) + dib + palette + pixels)
    }

    /// An uncompressed 8-bit gray TIFF of `width` x `rows` with one row per strip, every strip pointing at
    /// the same `width` bytes: 8 bytes of directory arrays per row (100,000 rows are 800 KB), so the cost is
    /// the per-strip work of the decoder, not pixels.
    public static func manyStripsTIFF(width: Int, rows: Int) -> Data {
        let row = [UInt8]((0..<width).map { UInt8(truncatingIfNeeded: $0 * 3) })
        let entryCount = 9
        let ifdOffset = 8 + row.count + (row.count & 1)
        let arraysOffset = ifdOffset + 2 + entryCount * 12 + 4
        let countsOffset = arraysOffset + rows * 4
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + (type == 3 && count == 1 ? le16(value) + [0, 0] : le32(value))
        }
        var out: [UInt8] = [0x49, 0x49, 42, 0] + le32(ifdOffset) + row
        if row.count & 1 == 1 { out.append(0) }
        out += le16(entryCount)
        out += entry(256, 4, 1, width) + entry(257, 4, 1, rows) + entry(258, 3, 1, 8) + entry(259, 3, 1, 1)
        out += entry(262, 3, 1, 1) + entry(273, 4, rows, arraysOffset) + entry(277, 3, 1, 1)
        out += entry(278, 4, 1, 1) + entry(279, 4, rows, countsOffset) + le32(0)
        out.reserveCapacity(out.count + rows * 8)
        for _ in 0..<rows { out += le32(8) }
        for _ in 0..<rows { out += le32(width) }
        return Data(out)
    }

    /// An icon whose directory declares `entries` entries (at most 65,535), every one pointing at the same
    /// 256x256 32-bit BMP entry: a directory of up to 1 MB to walk, one picture to decode.
    public static func manyEntriesICO(entries: Int) -> Data {
        let count = min(entries, 65_535)
        let side = 256
        var dib = le32(40) + le32(side) + le32(side * 2) + le16(1) + le16(32) + le32(0) + le32(side * side * 4)
        dib += le32(0) + le32(0) + le32(0) + le32(0)
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        for i in 0..<(side * side) {
            pixels[i * 4] = UInt8(i % side); pixels[i * 4 + 1] = UInt8(i / side); pixels[i * 4 + 3] = 255
        }
        let mask = [UInt8](repeating: 0, count: side / 8 * side)
        let payload = dib + pixels + mask
        let offset = 6 + count * 16
        var out: [UInt8] = le16(0) + le16(1) + le16(count)
        out.reserveCapacity(offset + payload.count)
        for _ in 0..<count { out += [0, 0, 0, 0] + le16(1) + le16(32) + le32(payload.count) + le32(offset) }
        return Data(out + payload)
    }
}
