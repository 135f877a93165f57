import Dispatch
import Foundation
import Glibc
import Logging
import Synchronization
import WebImageCore

/// A file-per-key disk cache (SDWebImage's `SDDiskCache`): the default `ExpiringDataStorage` of the two-level
/// `WebImageCache`.
///
/// Each entry is one file in `directory/namespace`, named by the SHA-256 of its key plus the key's
/// extension (``fileURL(forKey:)``). Writes go to a temporary file in the same directory and are renamed
/// into place, so readers, other processes and crashes see the old entry or the new one, never half a
/// file; several processes may share one directory. Extended data (the HTTP validators) rides along in
/// an extended attribute, or a sidecar file where the filesystem refuses attributes.
///
/// Limits are in ``DiskCacheConfiguration``: entries older than `maxDiskAge` go at the next trim, and a
/// store that takes the cache above `maxDiskSize` starts a background trim, oldest first, down to half
/// the limit. ``totalSize`` and ``totalCount`` come from an in-memory index, built by one directory scan
/// when first needed and rebuilt by every trim (which is when other processes' writes are counted).
///
/// Every method blocks on file I/O: call them off threads that must stay responsive (the two-level
/// cache does). Every failure is an `ImageError/cacheIO(reason:)` that leaves the other entries intact.
///
/// ```swift
/// let disk = try DiskCache(directory: DiskCache.defaultDirectory, namespace: "avatars")
/// try disk.setData(bytes, forKey: url.absoluteString)
/// let again = try disk.data(forKey: url.absoluteString)
/// ```
public final class DiskCache: ExpiringDataStorage {
    /// `$XDG_CACHE_HOME/SwiftWebImage`, else `~/.cache/SwiftWebImage`, else the temporary directory's.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            base = FileManager.default.temporaryDirectory
        }
        return base.appendingPathComponent("SwiftWebImage", isDirectory: true)
    }

    /// A hit refreshes the access date only when it is older than this many seconds: one metadata write
    /// per entry per minute at most, instead of one per read, and still exact enough for day-scale ages.
    static let accessDateRefreshInterval: Double = 60

    /// The directory holding the entries (`directory/namespace`).
    public let directory: URL
    /// The limits and policies given at creation.
    public let configuration: DiskCacheConfiguration
    /// Where the cache logs, at `debug`: trims (entries and bytes removed and kept, how long), index
    /// scans; at `warning`, background I/O failures that no caller sees (a failed automatic trim or scan).
    public let logger: Logger

    /// `directory.path`, kept as a string: paths are built on every call.
    let path: String
    /// The read-only directories, searched after ``path``.
    let readOnlyPaths: [String]
    /// Sizes, dates and totals of the entries (see ``DiskIndex``). Held only for O(1) updates, never for I/O.
    let index = Locked(DiskIndex())
    /// Serialises directory scans (index loads, trims, clears), which run outside ``index``'s lock.
    let scanLock = Locked(())
    /// Runs automatic trims and index loads off the callers' threads, one at a time.
    let maintenanceQueue = DispatchQueue(label: "WebImageDiskCache.maintenance", qos: .utility)

    /// Opens (creating it if needed) the cache in `directory/namespace`.
    ///
    /// - Parameters:
    ///   - directory: The parent of the namespaced directory; ``defaultDirectory`` is a good choice.
    ///   - namespace: One path component naming this cache, so caches with different data never mix.
    ///     `"default"` by default.
    ///   - configuration: Limits and policies.
    ///   - logger: Where the cache logs. `Logger(label: "SwiftWebImage.DiskCache")` by default; the
    ///     library never bootstraps logging.
    /// - Throws: `ImageError/cacheIO(reason:)` when the namespace is not a plain name or the directory
    ///   cannot be created.
    public init(
        directory: URL, namespace: String = "default",
        configuration: DiskCacheConfiguration = DiskCacheConfiguration(),
        logger: Logger = Logger(label: "SwiftWebImage.DiskCache")
    ) throws(ImageError) {
        self.logger = logger
        guard !namespace.isEmpty, namespace != ".", namespace != "..", !namespace.contains("/"),
            !namespace.utf8.contains(0)
        else {
            throw .cacheIO(reason: "namespace \"\(namespace)\" is not a single path component")
        }
        self.directory = directory.appendingPathComponent(namespace, isDirectory: true).standardizedFileURL
        self.configuration = configuration
        path = self.directory.path
        readOnlyPaths = configuration.additionalReadOnlyDirectories.map(\.standardizedFileURL.path)
        try DiskIO.makeDirectory(path)
    }

    /// The file that holds (or would hold) `key`'s data; always directly inside ``directory``.
    public func fileURL(forKey key: String) -> URL {
        URL(fileURLWithPath: filePath(CacheFileName.forKey(key)), isDirectory: false)
    }

    func filePath(_ name: String, in directory: String? = nil) -> String {
        (directory ?? path) + "/" + name
    }

    /// The file name at the end of a path in the main directory.
    func name(ofPath file: String) -> String {
        String(decoding: file.utf8.dropFirst(path.utf8.count + 1), as: UTF8.self)
    }

    /// The date of `info` that expiry goes by.
    func expiryDate(_ info: DiskIO.FileInfo) -> Double {
        configuration.expireType == .accessDate ? info.accessDate : info.modificationDate
    }

    // MARK: ExpiringDataStorage

    /// The bytes for `key` from the main directory, else the read-only ones; nil when there are none.
    /// An empty file (a write a crash cut short) is a miss and is removed. Under access-date expiry a
    /// hit refreshes the file's access date.
    public func data(forKey key: String) throws(ImageError) -> Data? {
        let file = CacheFileName.path(forKey: key, in: path)
        var refreshBefore: Double? = nil
        var now = 0.0
        if configuration.expireType == .accessDate {
            now = Date().timeIntervalSince1970
            refreshBefore = now - Self.accessDateRefreshInterval
        }
        if let (data, info) = try DiskIO.read(file, touchAccessDateOlderThan: refreshBefore) {
            if data.isEmpty {
                try? removeEntry(name(ofPath: file))
                return nil
            }
            if let refreshBefore, info.accessDate < refreshBefore {
                let name = name(ofPath: file)
                index.withLock { $0.touched(name, date: now) }
            }
            return data
        }
        if readOnlyPaths.isEmpty { return nil }
        let name = name(ofPath: file)
        for directory in readOnlyPaths {
            if let (data, _) = try DiskIO.read(filePath(name, in: directory)), !data.isEmpty { return data }
        }
        return nil
    }

    public func setData(_ data: Data, forKey key: String) throws(ImageError) {
        try setData(data, extendedData: nil, forKey: key)
    }

    /// Stores `data` for `key` atomically, with `extendedData` attached before the file appears (in
    /// extended-attribute mode), replacing any previous entry and its extended data. A store that takes
    /// the cache above `maxDiskSize` starts a background trim.
    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws(ImageError) {
        let file = CacheFileName.path(forKey: key, in: path)
        let name = name(ofPath: file)
        let useAttribute = extendedData != nil && configuration.extendedDataStorage == .extendedAttributes
        var attributeRefused = false
        var written: DiskIO.FileInfo? = nil
        // Runs on the finished temporary file: the attribute then appears together with the data.
        let attach: ((Int32) throws(ImageError) -> Void)? =
            extendedData == nil
            ? nil
            : { fd throws(ImageError) in
                if useAttribute { attributeRefused = try !ExtendedAttribute.set(extendedData!, on: fd, path: file) }
                if !useAttribute || attributeRefused { written = try DiskIO.info(fd: fd, path: file) }
            }
        let sync = configuration.durability == .fsyncBeforeRename
        do {
            try DiskIO.writeAtomically(data, to: file, directory: path, sync: sync, prepare: attach)
        } catch {
            // The directory was removed under us (a user clearing caches by hand): make it and retry once.
            guard access(path, F_OK) != 0, errno == ENOENT else { throw error }
            try DiskIO.makeDirectory(path)
            try DiskIO.writeAtomically(data, to: file, directory: path, sync: sync, prepare: attach)
        }
        // A sidecar left by the previous entry no longer matches the new file, so it needs no removal.
        if let extendedData, let written {
            try DiskIO.writeAtomically(
                SidecarFile.encode(extendedData, describing: written),
                to: filePath(CacheFileName.sidecar(for: name)), directory: path, sync: sync)
        }
        let entry = DiskIndex.Entry(size: data.count, date: Date().timeIntervalSince1970)
        let limit = configuration.maxDiskSize
        let schedule = updateIndex { index in
            index.stored(name, entry)
            return claimMaintenance(&index, limit: limit)
        }
        if schedule { scheduleMaintenance() }
    }

    /// The extended data stored with `key`; nil when there is none or it cannot be read.
    public func extendedData(forKey key: String) -> Data? {
        let name = CacheFileName.forKey(key)
        for directory in [path] + readOnlyPaths {
            let file = filePath(name, in: directory)
            if let data = try? ExtendedAttribute.get(path: file) { return data }
            guard let entry = try? DiskIO.info(file) else { continue }
            let sidecar = filePath(CacheFileName.sidecar(for: name), in: directory)
            if let (bytes, _) = try? DiskIO.read(sidecar) { return SidecarFile.decode(bytes, describing: entry) }
            return nil
        }
        return nil
    }

    /// Sets (or, with nil, clears) the extended data of `key`'s entry. Does nothing when there is no entry.
    public func setExtendedData(_ data: Data?, forKey key: String) throws(ImageError) {
        let name = CacheFileName.forKey(key)
        let file = filePath(name)
        let sidecar = filePath(CacheFileName.sidecar(for: name))
        guard let entry = try DiskIO.info(file) else { return }
        guard let data else {
            try ExtendedAttribute.remove(path: file)
            try DiskIO.remove(sidecar)
            return
        }
        if configuration.extendedDataStorage == .extendedAttributes, try ExtendedAttribute.set(data, path: file) {
            try DiskIO.remove(sidecar)
            return
        }
        try ExtendedAttribute.remove(path: file)
        try DiskIO.writeAtomically(
            SidecarFile.encode(data, describing: entry), to: sidecar, directory: path,
            sync: configuration.durability == .fsyncBeforeRename)
    }

    /// Whether `key` has an entry in the main or a read-only directory.
    public func containsData(forKey key: String) -> Bool {
        let name = CacheFileName.forKey(key)
        return ([path] + readOnlyPaths).contains { access(filePath(name, in: $0), F_OK) == 0 }
    }

    /// Removes `key`'s entry and its extended data from the main directory; a missing entry is not an error.
    public func removeData(forKey key: String) throws(ImageError) {
        try removeEntry(CacheFileName.forKey(key))
    }

    func removeEntry(_ name: String) throws(ImageError) {
        defer { updateIndex { $0.removed(name) } }
        try DiskIO.remove(filePath(name))
        try DiskIO.remove(filePath(CacheFileName.sidecar(for: name)))
    }

    /// Removes every entry, sidecar and temporary file of the main directory (files of other names are
    /// left alone). The first failure is thrown after the rest were attempted.
    public func removeAllData() throws(ImageError) {
        try scanLock.withLock { _ throws(ImageError) in
            index.withLock { $0.beginScan() }
            let scan: DirectoryScan
            do throws(ImageError) {
                scan = try DirectoryScan(path: path)
            } catch {
                index.withLock { $0.abandonScan() }
                throw error
            }
            var firstError: ImageError? = nil
            let names = scan.entries.map(\.name) + Array(scan.sidecars) + scan.temporaries.map(\.name)
            for name in names {
                do throws(ImageError) { try DiskIO.remove(filePath(name)) } catch { firstError = firstError ?? error }
            }
            updateIndex { $0.finishScan([:]) }
            if let firstError { throw firstError }
        }
    }

    /// Bytes in the main directory's entries, from the index (loaded by one scan the first time).
    public var totalSize: Int {
        ensureIndexLoaded()
        return index.withLock { $0.totalSize }
    }

    /// Entries in the main directory, from the index (loaded by one scan the first time).
    public var totalCount: Int {
        ensureIndexLoaded()
        return index.withLock { $0.count }
    }
}
extension DiskCache {
}
