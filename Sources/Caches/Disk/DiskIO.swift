internal import CFileSystem
import Foundation
import Glibc
import Synchronization
import WebImageCore

/// The POSIX calls the disk cache is made of, each turning `errno` into a typed `ImageError/cacheIO(reason:)`.
///
/// Paths are plain `String`s built from the cache directory and a ``CacheFileName``; every function
/// keeps its file descriptor inside its own scope and closes it on every path.
enum DiskIO {
    /// A file's size, the two dates expiry can use, and what identifies this version of it.
    struct FileInfo: Sendable {
        var size: Int
        var accessDate: Double
        var modificationDate: Double
        /// Inode and modification time (seconds, nanoseconds): with the size, what tells one written file
        /// from the next one renamed over it. Kept as plain fields: `read` runs on every hit and makes no
        /// allocation for them.
        private var inode: UInt64
        private var modificationSeconds: Int64
        private var modificationNanoseconds: Int64

        /// Inode, size and modification time to the nanosecond: together they tell one written file from
        /// the next one renamed over it (a sidecar records them to prove it still describes its entry).
        var identity: [UInt64] {
            [inode, UInt64(size), UInt64(bitPattern: modificationSeconds), UInt64(bitPattern: modificationNanoseconds)]
        }

        init(_ st: stat) {
            size = Int(st.st_size)
            accessDate = Double(st.st_atim.tv_sec) + Double(st.st_atim.tv_nsec) / 1e9
            modificationDate = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            inode = UInt64(st.st_ino)
            modificationSeconds = Int64(st.st_mtim.tv_sec)
            modificationNanoseconds = Int64(st.st_mtim.tv_nsec)
        }
    }

    /// Counter that, with the process id, makes temporary file names unique across threads and processes.
    private static let temporaryCounter = Atomic<Int>(0)
    /// This process's id, asked once: `getpid` is a system call, and temporary names need it per write.
    private static let processID = getpid()

    /// The error for a failed `operation` on `path`, from the current `errno`.
    static func error(_ operation: String, _ path: String, code: Int32 = errno) -> ImageError {
        .cacheIO(reason: "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }

    /// The whole file at `path` and its info; nil when it does not exist (ENOENT, ENOTDIR in a missing
    /// parent is an error). When `touchAccessDateOlderThan` is given and the file's access date is older,
    /// the access date is set to now (a hit keeps an entry alive under access-date expiry).
    static func read(
        _ path: String, touchAccessDateOlderThan threshold: Double? = nil
    ) throws(ImageError) -> (Data, FileInfo)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw error("open", path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw error("fstat", path) }
        let info = FileInfo(st)
        let size = info.size
        // Uninitialised memory handed to Data, which frees it: no zero-filling of bytes we overwrite.
        guard let buffer = malloc(max(size, 1)) else { throw .cacheIO(reason: "out of memory reading \(path)") }
        var done = 0
        while done < size {
            let n = Glibc.read(fd, buffer + done, size - done)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                free(buffer)
                throw error("read", path, code: code)
            }
            if n == 0 { break }
            done += n
        }
        if let threshold, info.accessDate < threshold {
            // Only the access date; UTIME_OMIT leaves the modification date alone. Failure is harmless.
            var times = [timespec(tv_sec: 0, tv_nsec: cfs_utime_now()), timespec(tv_sec: 0, tv_nsec: cfs_utime_omit())]
            _ = futimens(fd, &times)
        }
        return (Data(bytesNoCopy: buffer, count: done, deallocator: .free), info)
    }

    /// Info for the open file `fd` (at `path`, for the error message).
    static func info(fd: Int32, path: String) throws(ImageError) -> FileInfo {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw error("fstat", path) }
        return FileInfo(st)
    }

    /// Info for `path`, nil when it does not exist.
    static func info(_ path: String) throws(ImageError) -> FileInfo? {
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT { return nil }
            throw error("stat", path)
        }
        return FileInfo(st)
    }

    /// Writes `data` to `path` atomically: a temporary file in `directory`, then `rename`. Readers see
    /// the old file or the new one, never part of one. With `sync`, the bytes are flushed (`fsync`)
    /// before the rename. `prepare` runs on the open temporary file before the rename (to attach extended
    /// attributes); its error aborts the write. Returns the size written.
    @discardableResult
    static func writeAtomically(
        _ data: Data, to path: String, directory: String, sync: Bool,
        prepare: ((Int32) throws(ImageError) -> Void)? = nil
    ) throws(ImageError) -> Int {
        let counter = temporaryCounter.add(1, ordering: .relaxed).newValue
        let temporary = directory + "/" + CacheFileName.temporaryPrefix + String(processID) + "-" + String(counter)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw error("create", temporary) }
        var written = false
        defer { if !written { unlink(temporary) } }
        do throws(ImageError) {
            try writeAll(data, to: fd, path: temporary)
            if sync, fsync(fd) != 0 { throw error("fsync", temporary) }
            try prepare?(fd)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw error("close", temporary) }
        guard rename(temporary, path) == 0 else { throw error("rename", path) }
        written = true
        return data.count
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(ImageError) {
        let failure: Int32? = data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return nil
        }
        if let failure { throw error("write", path, code: failure) }
    }

    /// Removes `path`; a missing file is not an error. Returns whether a file was removed.
    @discardableResult
    static func remove(_ path: String) throws(ImageError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("unlink", path)
    }

    /// Creates `path` and its missing parents.
    static func makeDirectory(_ path: String) throws(ImageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            // FileManager's error names the failing component; keep errno-style wording for consistency.
            throw .cacheIO(reason: "mkdir \(path): \(error.localizedDescription)")
        }
    }

    /// Sets the access and modification dates of `path` (seconds since 1970).
    static func setDates(_ path: String, access: Double, modification: Double) throws(ImageError) {
        func spec(_ t: Double) -> timespec {
            let seconds = t.rounded(.down)
            return timespec(tv_sec: Int(seconds), tv_nsec: Int((t - seconds) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw error("utimensat", path) }
    }
}
