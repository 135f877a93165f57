/// The checksum the reference scripts (`scripts/*-reference.py`) record for decoded pixels.
public enum PixelHash {
    /// FNV-1a 64 of `bytes` (RGBA8 rows, top to bottom, no padding in the reference files).
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}
