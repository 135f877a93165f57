import Foundation
import Glibc
import WebImageCore

/// One pass over a cache directory: every data file with its size and dates, the sidecars, and the
/// temporary files left behind. Files that vanish while it runs (another process trimming) are skipped.
struct DirectoryScan {
    /// A data file found by the scan.
    struct Entry {
        var name: String
        var info: DiskIO.FileInfo
    }

    private(set) var entries: [Entry] = []
    /// Names of sidecar files (extended data kept beside an entry).
    private(set) var sidecars: Set<String> = []
    /// Temporary files and their modification dates.
    private(set) var temporaries: [(name: String, modificationDate: Double)] = []

    /// Scans `path`. A missing directory scans as empty; any other failure to open it is an error.
    init(path: String) throws(ImageError) {
        guard let dir = opendir(path) else {
            if errno == ENOENT { return }
            throw DiskIO.error("opendir", path)
        }
        defer { closedir(dir) }
        let dirFD = dirfd(dir)
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            let isData = CacheFileName.isDataFile(name)
            let isTemporary = !isData && name.hasPrefix(CacheFileName.temporaryPrefix)
            if !isData && !isTemporary {
                if CacheFileName.dataFile(forSidecar: name) != nil { sidecars.insert(name) }
                continue
            }
            var st = stat()
            // ENOENT: removed by another process since readdir returned it.
            guard fstatat(dirFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            guard (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let info = DiskIO.FileInfo(st)
            if isData {
                entries.append(Entry(name: name, info: info))
            } else {
                temporaries.append((name, info.modificationDate))
            }
        }
    }
}
