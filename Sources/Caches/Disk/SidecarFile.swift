import Foundation

/// The file that keeps an entry's extended data when extended attributes are refused (or not wanted):
/// `<name>-extended`, holding the identity of the data file it describes, then the extended data.
///
/// The identity (inode, size, modification time) makes a sidecar left over from an earlier version of
/// the entry harmless: it no longer matches, so it reads as "no extended data". That lets a store replace
/// an entry without also deleting its sidecar, which saves a system call on every store.
enum SidecarFile {
    /// Format tag, so a file of another shape is never taken for a sidecar.
    private static let magic = Array("WIX1".utf8)
    private static let identityCount = 4

    /// The sidecar's bytes for `extendedData` describing the data file whose info is `entry`.
    static func encode(_ extendedData: Data, describing entry: DiskIO.FileInfo) -> Data {
        var bytes = magic
        for value in entry.identity.prefix(identityCount) {
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        return Data(bytes) + extendedData
    }

    /// The extended data in `sidecar` if it describes the data file whose info is `entry`; nil otherwise.
    static func decode(_ sidecar: Data, describing entry: DiskIO.FileInfo) -> Data? {
        let headerSize = magic.count + identityCount * 8
        guard sidecar.count >= headerSize, sidecar.starts(with: magic) else { return nil }
        let start = sidecar.startIndex + magic.count
        for (i, expected) in entry.identity.prefix(identityCount).enumerated() {
            var value: UInt64 = 0
            for b in 0..<8 { value |= UInt64(sidecar[start + i * 8 + b]) << UInt64(8 * b) }
            guard value == expected else { return nil }
        }
        return Data(sidecar[(sidecar.startIndex + headerSize)...])
    }
}
