import Foundation

/// Reads the orientation tag (0x0112) from an EXIF block, as JPEG APP1, PNG eXIf and WebP EXIF carry it.
public enum ExifOrientation {
    /// The orientation in `tiff` (the TIFF structure after JPEG's `Exif\0\0` prefix), or nil when the
    /// block has none or is malformed. Every offset is bounds-checked: hostile EXIF cannot crash it.
    public static func orientation(fromTIFF tiff: Data) -> ImageOrientation? {
        let bytes = [UInt8](tiff)
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return littleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return littleEndian ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112 {
                guard let value = u16(at + 8) else { return nil }
                return ImageOrientation(rawValue: value)
            }
        }
        return nil
    }
}
