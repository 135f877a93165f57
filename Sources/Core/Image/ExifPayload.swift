import Foundation

/// Finds the TIFF structure in an EXIF payload as containers store it.
public enum ExifPayload {
    /// Bytes searched for the TIFF header: HEIF's Exif item starts with a 4-byte offset to it and often
    /// an `Exif\0\0` prefix (10 bytes before the header); 64 leaves room for writers that pad more.
    static let headerSearchLimit = 64

    /// `payload` from its TIFF header (`II*\0` or `MM\0*`) on, skipping the HEIF Exif item's offset field
    /// and any `Exif\0\0` prefix; nil when no header starts within the first bytes.
    public static func tiff(from payload: Data) -> Data? {
        let bytes = [UInt8](payload.prefix(headerSearchLimit + 4))
        guard bytes.count >= 4 else { return nil }
        for start in 0...(bytes.count - 4) {
            let b = bytes[start..<(start + 4)]
            if b.elementsEqual([0x49, 0x49, 0x2A, 0x00]) || b.elementsEqual([0x4D, 0x4D, 0x00, 0x2A]) {
                return Data(payload.dropFirst(start))
            }
        }
        return nil
    }
}
