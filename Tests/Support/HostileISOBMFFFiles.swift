import Foundation

extension HostileFiles {
    /// `file` (AVIF, HEIF: ISO base media) with every `ispe` box, the item's stored size, saying `width` x
    /// `height`: a header that claims any size while the coded data stays small.
    public static func withSpatialExtent(_ file: Data, width: UInt32, height: UInt32) -> Data {
        var bytes = [UInt8](file)
        var search = 0
        while let range = bytes[search...].firstRange(of: Array("ispe".utf8)) {
            // Box type, then version/flags (4 bytes), then width and height, big-endian.
            let at = range.upperBound + 4
            for (offset, value) in [(0, width), (4, height)] {
                for i in 0..<4 { bytes[at + offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
            }
            search = range.upperBound
        }
        return Data(bytes)
    }
}
