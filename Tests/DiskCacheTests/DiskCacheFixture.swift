import Foundation
import WebImageCore
import WebImageTestSupport

@testable import WebImageDiskCache

/// A disk cache in a fresh temporary directory, removed with the fixture.
struct DiskCacheFixture {
    let temporary: TemporaryDirectory
    let cache: DiskCache

    init(namespace: String = "test", configure: (inout DiskCacheConfiguration) -> Void = { _ in }) throws {
        temporary = try TemporaryDirectory(prefix: "disk-cache")
        var configuration = DiskCacheConfiguration()
        configure(&configuration)
        cache = try DiskCache(directory: temporary.url, namespace: namespace, configuration: configuration)
    }

    /// Names of the files in the cache directory.
    func fileNames() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: cache.directory.path))
    }

    /// Sets the access and modification dates of `key`'s file to `secondsAgo` before now.
    func age(_ key: String, accessedSecondsAgo access: Double, modifiedSecondsAgo modification: Double) throws {
        let now = Date().timeIntervalSince1970
        try DiskIO.setDates(cache.fileURL(forKey: key).path, access: now - access, modification: now - modification)
    }

    /// `count` bytes of `value`.
    static func bytes(_ count: Int, _ value: UInt8 = 0x5A) -> Data { Data(repeating: value, count: count) }
}

/// Whether `error` is a cache I/O error.
func isCacheIO(_ error: any Error) -> Bool {
    if case .cacheIO = error as? ImageError { return true }
    return false
}
