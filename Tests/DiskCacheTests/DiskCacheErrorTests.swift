import Foundation
import Glibc
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageDiskCache

/// I/O failures are typed errors that leave the rest of the cache working. Tests run as root in CI and
/// root ignores permission bits, so the root-proof cases put a regular file where a directory should be
/// (ENOTDIR fails for everyone); the permission-bit case runs only for other users.
@Suite("Disk cache errors")
struct DiskCacheErrorTests {
    @Test func directoryBelowARegularFileIsATypedErrorAtCreation() throws {
        let temporary = try TemporaryDirectory(prefix: "disk-cache")
        let blocker = try temporary.write(Data("not a directory".utf8), to: "blocker")
        #expect { try DiskCache(directory: blocker, namespace: "cache") } throws: { isCacheIO($0) }
    }

    @Test func directoryReplacedByAFileFailsEveryCallWithATypedErrorAndSparesOtherCaches() throws {
        let fixture = try DiskCacheFixture(namespace: "broken")
        let healthy = try DiskCache(directory: fixture.temporary.url, namespace: "healthy")
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "k")
        try healthy.setData(DiskCacheFixture.bytes(20), forKey: "k")

        try FileManager.default.removeItem(at: cache.directory)
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: cache.directory.path))

        #expect { try cache.setData(DiskCacheFixture.bytes(10), forKey: "k") } throws: { isCacheIO($0) }
        #expect { try cache.data(forKey: "k") } throws: { isCacheIO($0) }
        #expect { try cache.removeData(forKey: "k") } throws: { isCacheIO($0) }
        #expect { try cache.removeExpiredData() } throws: { isCacheIO($0) }
        #expect { try cache.removeAllData() } throws: { isCacheIO($0) }
        #expect(!cache.containsData(forKey: "k"))
        #expect(cache.extendedData(forKey: "k") == nil)

        #expect(try healthy.data(forKey: "k") == DiskCacheFixture.bytes(20))
    }

    @Test(.disabled(if: getuid() == 0, "root bypasses permission bits; the ENOTDIR tests cover root"))
    func readOnlyDirectoryRefusesStoresWithATypedErrorAndStillServesReads() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "kept")
        #expect(chmod(cache.directory.path, 0o555) == 0)
        defer { chmod(cache.directory.path, 0o755) }

        #expect { try cache.setData(DiskCacheFixture.bytes(10), forKey: "new") } throws: { isCacheIO($0) }
        #expect { try cache.removeData(forKey: "kept") } throws: { isCacheIO($0) }
        #expect(try cache.data(forKey: "kept") == DiskCacheFixture.bytes(10))
        #expect(cache.totalCount == 1)
    }

    @Test(.disabled(if: getuid() == 0, "root bypasses permission bits; the ENOTDIR tests cover root"))
    func unreadableFileIsATypedErrorNotAMiss() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "secret")
        #expect(chmod(cache.fileURL(forKey: "secret").path, 0o000) == 0)
        #expect { try cache.data(forKey: "secret") } throws: { isCacheIO($0) }
    }
}
