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

    /// The file name for `key`.
    static func forKey(_ key: String) -> String {
        path(forKey: key, in: "")
    }

    /// `directory + "/" + forKey(key)` built in one buffer (the disk cache's hot path); with an empty
    /// `directory`, just the name.
    static func path(forKey key: String, in directory: String) -> String {
        var key = key
        var directory = directory
        return key.withUTF8 { bytes in
            directory.withUTF8 { prefix in
                let ext = extensionRange(in: bytes)
                let length = (prefix.isEmpty ? 0 : prefix.count + 1) + digestLength + (ext.map { $0.count + 1 } ?? 0)
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                    // Fails only when libcrypto is out of memory; the zeroed digest would still name a file
                    // inside the directory, and the assertion keeps it from going unnoticed in debug builds.
                    digest.initialize(repeating: 0)
                    let ok = SHA256Algorithm.shared.digest(bytes, into: digest.baseAddress!)
                    assert(ok, "SHA-256 digest failed")
                    return String(unsafeUninitializedCapacity: length) { buffer in
                        var i = 0
                        if !prefix.isEmpty {
                            for byte in prefix {
                                buffer[i] = byte
                                i += 1
                            }
                            buffer[i] = UInt8(ascii: "/")
                            i += 1
                        }
                        for byte in digest {
                            buffer[i] = hexDigit(byte >> 4)
                            buffer[i + 1] = hexDigit(byte & 0x0F)
                            i += 2
                        }
                        if let ext {
                            buffer[i] = UInt8(ascii: ".")
                            i += 1
                            for offset in ext {
                                buffer[i] = bytes[offset]
                                i += 1
                            }
                        }
                        return i
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// The extension of the last path component of `key` with any query or fragment removed, when it
    /// is 1 to ``maxExtensionLength`` ASCII letters or digits; nil otherwise.
    static func pathExtension(of key: String) -> String? {
        var key = key
        return key.withUTF8 { bytes in
            extensionRange(in: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    /// Offsets of the extension (see ``pathExtension(of:)``) in a key's UTF-8 bytes.
    private static func extensionRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        // The path ends at the first `?` or `#`.
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var start = end
        while start > 0 {
            let byte = bytes[start - 1]
            if byte == UInt8(ascii: ".") { return start < end ? start..<end : nil }
            guard isASCIIAlphanumeric(byte), end - start < maxExtensionLength else { return nil }
            start -= 1
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
