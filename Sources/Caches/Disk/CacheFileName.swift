import CCrypto

/// How the disk cache names its files: the SHA-256 of the key in lowercase hex, plus the key's
/// extension when it is short and alphanumeric (`<64 hex>.png`).
///
/// The name is made only of hex digits, one dot and ASCII letters and digits, so no key, however
/// hostile (`../../etc/passwd`, 10 KB long, NUL bytes, replacement characters), can name a path outside
/// the cache directory or a name longer than `NAME_MAX`. Everything else in the directory is told
/// apart by shape: sidecar files end in ``sidecarSuffix`` and temporary files start with
/// ``temporaryPrefix``, neither of which a data file name can do.
enum CacheFileName {
    /// Longest URL extension kept; longer ones are dropped (SDWebImage also bounds it).
    static let maxExtensionLength = 8
    /// Length of the hex digest.
    static let digestLength = 64
    /// Suffix of the file that holds an entry's extended data when extended attributes are refused.
    static let sidecarSuffix = "-extended"
    /// Prefix of in-flight writes; hidden (leading dot) and never a data file name.
    static let temporaryPrefix = ".tmp-"

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The file name for `key`.
    static func forKey(_ key: String) -> String {
        var key = key
        let digest = key.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { out -> [UInt8] in
                // SHA256() never fails for a valid output buffer; it returns that buffer.
                _ = SHA256(bytes.baseAddress, bytes.count, out.baseAddress)
                return Array(out)
            }
        }
        let ext = pathExtension(of: key)
        let length = digestLength + (ext.map { $0.utf8.count + 1 } ?? 0)
        return String(unsafeUninitializedCapacity: length) { buffer in
            var i = 0
            for byte in digest {
                buffer[i] = hexDigits[Int(byte >> 4)]
                buffer[i + 1] = hexDigits[Int(byte & 0x0F)]
                i += 2
            }
            if let ext {
                buffer[i] = UInt8(ascii: ".")
                i += 1
                for byte in ext.utf8 {
                    buffer[i] = byte
                    i += 1
                }
            }
            return i
        }
    }

    /// The extension of the last path component of `key` with any query or fragment removed, when it
    /// is 1 to ``maxExtensionLength`` ASCII letters or digits; nil otherwise.
    static func pathExtension(of key: String) -> String? {
        let utf8 = key.utf8
        // The path ends at the first `?` or `#`; look only at the last few bytes before that.
        let end = utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        var extensionBytes: [UInt8] = []
        var index = end
        while index > utf8.startIndex {
            index = utf8.index(before: index)
            let byte = utf8[index]
            if byte == UInt8(ascii: ".") {
                guard !extensionBytes.isEmpty else { return nil }
                return String(decoding: extensionBytes.reversed(), as: UTF8.self)
            }
            guard isASCIIAlphanumeric(byte), extensionBytes.count < maxExtensionLength else { return nil }
            extensionBytes.append(byte)
        }
        return nil
    }

    /// Whether `name` has the shape of a data file name (hex digest, optional short extension).
    static func isDataFile(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard utf8.count >= digestLength, utf8[..<digestLength].allSatisfy(isLowercaseHex) else { return false }
        if utf8.count == digestLength { return true }
        let ext = utf8[(digestLength + 1)...]
        return utf8[digestLength] == UInt8(ascii: ".") && !ext.isEmpty && ext.count <= maxExtensionLength
            && ext.allSatisfy(isASCIIAlphanumeric)
    }

    /// The sidecar file name for data file `name`.
    static func sidecar(for name: String) -> String { name + sidecarSuffix }

    /// The data file name a sidecar belongs to, or nil when `name` is not a sidecar.
    static func dataFile(forSidecar name: String) -> String? {
        guard name.hasSuffix(sidecarSuffix) else { return nil }
        let base = String(name.dropLast(sidecarSuffix.count))
        return isDataFile(base) ? base : nil
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }
}
