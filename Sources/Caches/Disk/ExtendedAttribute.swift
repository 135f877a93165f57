internal import CFileSystem
import Foundation
import Glibc
import WebImageCore

/// The one extended attribute (`user.webimage.extended`) that holds an entry's extended data.
///
/// Filesystems may refuse user attributes (older tmpfs, some network filesystems) or values that big
/// (ext4 keeps them in one block): those refusals are reported as `false`/nil so the cache can fall back
/// to a sidecar file; every other failure is a typed error.
enum ExtendedAttribute {
    /// The attribute's name; the `user.` namespace is the one unprivileged processes may write.
    static let name = "user.webimage.extended"

    /// Whether `code` means "this filesystem will not keep this attribute" rather than a real failure.
    static func isRefusal(_ code: Int32) -> Bool {
        code == ENOTSUP || code == EOPNOTSUPP || code == E2BIG || code == ENOSPC || code == EPERM || code == ERANGE
    }

    /// Attaches `data` to the open file `fd`. Returns false when the filesystem refuses it.
    static func set(_ data: Data, on fd: Int32, path: String) throws(ImageError) -> Bool {
        let result = data.withUnsafeBytes { raw in fsetxattr(fd, name, raw.baseAddress, raw.count, 0) }
        if result == 0 { return true }
        let code = errno
        if isRefusal(code) { return false }
        throw DiskIO.error("fsetxattr", path, code: code)
    }

    /// Attaches `data` to the file at `path`. Returns false when the filesystem refuses it.
    static func set(_ data: Data, path: String) throws(ImageError) -> Bool {
        let result = data.withUnsafeBytes { raw in setxattr(path, name, raw.baseAddress, raw.count, 0) }
        if result == 0 { return true }
        let code = errno
        if isRefusal(code) { return false }
        throw DiskIO.error("setxattr", path, code: code)
    }

    /// The attribute's bytes; nil when the file has none, is gone, or the filesystem has no attributes.
    static func get(path: String) throws(ImageError) -> Data? {
        // The value may change between asking its size and reading it (another process); retry then.
        for _ in 0..<4 {
            let size = getxattr(path, name, nil, 0)
            if size < 0 {
                let code = errno
                if code == ENODATA || code == ENOENT || isRefusal(code) { return nil }
                throw DiskIO.error("getxattr", path, code: code)
            }
            var bytes = [UInt8](repeating: 0, count: size)
            let read = bytes.withUnsafeMutableBytes { raw in getxattr(path, name, raw.baseAddress, raw.count) }
            if read >= 0 { return Data(bytes[..<read]) }
            let code = errno
            if code == ERANGE { continue }
            if code == ENODATA || code == ENOENT { return nil }
            throw DiskIO.error("getxattr", path, code: code)
        }
        return nil
    }

    /// Removes the attribute; a missing attribute or file is not an error.
    static func remove(path: String) throws(ImageError) {
        if removexattr(path, name) == 0 { return }
        let code = errno
        if code == ENODATA || code == ENOENT || isRefusal(code) { return }
        throw DiskIO.error("removexattr", path, code: code)
    }
}
