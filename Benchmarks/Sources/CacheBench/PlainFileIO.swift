import Foundation
import Glibc

/// The baseline the disk cache is measured against: the fewest POSIX calls that do the same job.
enum PlainFileIO {
    /// Write a temporary file in `directory`, then rename it to `name`: an atomic store, no extras.
    static func store(_ data: Data, directory: String, name: String) {
        let temporary = directory + "/.tmp-" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(temporary) failed: errno \(errno)")
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                precondition(n > 0, "write failed: errno \(errno)")
                done += n
            }
        }
        close(fd)
        precondition(rename(temporary, directory + "/" + name) == 0, "rename failed: errno \(errno)")
    }

    /// open + fstat + read into a fresh buffer + close; returns the byte count.
    static func read(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        precondition(fd >= 0, "open \(path) failed: errno \(errno)")
        var st = stat()
        fstat(fd, &st)
        let size = Int(st.st_size)
        let buffer = malloc(max(size, 1))!
        var done = 0
        while done < size {
            let n = Glibc.read(fd, buffer + done, size - done)
            if n <= 0 { break }
            done += n
        }
        close(fd)
        free(buffer)
        return done
    }
}
