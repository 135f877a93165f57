/// EXIF blocks made in code: the TIFF structure that JPEG APP1 (after `Exif\0\0`), PNG eXIf and WebP
/// EXIF carry.
public enum TestEXIF {
    /// A big-endian TIFF block with one IFD0 entry: Orientation (0x0112, SHORT) = `orientation`.
    public static func tiff(orientation: UInt16) -> [UInt8] {
        Array("MM".utf8) + [0, 42, 0, 0, 0, 8] + [0, 1] + [0x01, 0x12, 0, 3, 0, 0, 0, 1]
            + [UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0, 0] + [0, 0, 0, 0]
    }
}
