import Foundation
import Synchronization
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageDiskCache

@Suite("Disk cache storage")
struct DiskCacheStorageTests {
    @Test func storedDataReadsBackAndRemovingItLeavesAMiss() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(1_000), forKey: "https://example.com/a.png")
        #expect(try cache.data(forKey: "https://example.com/a.png") == DiskCacheFixture.bytes(1_000))
        #expect(cache.containsData(forKey: "https://example.com/a.png"))
        #expect(cache.totalCount == 1)
        #expect(cache.totalSize == 1_000)
        try cache.removeData(forKey: "https://example.com/a.png")
        #expect(try cache.data(forKey: "https://example.com/a.png") == nil)
        #expect(!cache.containsData(forKey: "https://example.com/a.png"))
        #expect(cache.totalCount == 0)
        #expect(try fixture.fileNames().isEmpty)
    }

    @Test func hostileKeysNeverNameAFileOutsideTheCacheDirectory() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        let keys = [
            "../../etc/passwd", "/etc/passwd", "..", ".", "", "a/../../b.png", "?#",
            String(repeating: "../", count: 3_500),  // 10 KB of parent references
            "nul\0byte", "nul\0other",  // differ only after a NUL
            String(decoding: [0xFF, 0xFE, 0x2E, 0x2E, 0x2F, 0xC0, 0xAF], as: UTF8.self),  // invalid UTF-8, repaired
            "x.png/../../../y.sh", "\n\r\t.\u{202E}gnp",
        ]
        for (i, key) in keys.enumerated() {
            try cache.setData(DiskCacheFixture.bytes(10 + i, UInt8(i)), forKey: key)
        }
        for (i, key) in keys.enumerated() {
            #expect(try cache.data(forKey: key) == DiskCacheFixture.bytes(10 + i, UInt8(i)), "key #\(i)")
            let file = cache.fileURL(forKey: key)
            #expect(file.deletingLastPathComponent().standardizedFileURL == cache.directory.standardizedFileURL)
            #expect(file.lastPathComponent.utf8.count <= 255)
            #expect(CacheFileName.isDataFile(file.lastPathComponent))
        }
        // One file per key in the cache directory, and nothing written beside it.
        #expect(try fixture.fileNames().count == keys.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.temporary.url.path) == ["test"])
    }

    @Test func concurrentReadersNeverSeeAPartialFile() async throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        let key = "https://example.com/contended.png"
        try cache.setData(SelfCheckingPayload.make(seed: 0), forKey: key)
        let writersDone = Atomic<Int>(0)
        let torn = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let writers = 3, readers = 3, rewrites = 150
        let group = DispatchGroup()
        // Threads, not tasks: the cache's calls block, and the cooperative pool has only two threads here.
        for w in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                for i in 0..<rewrites {
                    do {
                        try cache.setData(SelfCheckingPayload.make(seed: UInt64(w * 1_000 + i + 1)), forKey: key)
                    } catch { failures.add(1, ordering: .relaxed) }
                }
                writersDone.add(1, ordering: .releasing)
                group.leave()
            }
        }
        for _ in 0..<readers {
            group.enter()
            Thread.detachNewThread {
                var count = 0
                while writersDone.load(ordering: .acquiring) < writers || count < 50 {
                    count += 1
                    do {
                        guard let data = try cache.data(forKey: key) else { torn.add(1, ordering: .relaxed); continue }
                        if !SelfCheckingPayload.isValid(data) { torn.add(1, ordering: .relaxed) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                reads.add(count, ordering: .relaxed)
                group.leave()
            }
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) >= readers * 50)
        // Only the final entry is left: no temporary file survived.
        #expect(try fixture.fileNames() == [cache.fileURL(forKey: key).lastPathComponent])
    }

    @Test(arguments: DiskCacheConfiguration.ExtendedDataStorage.allCases)
    func extendedDataRoundTripsAndGoesWithItsEntry(storage: DiskCacheConfiguration.ExtendedDataStorage) throws {
        let fixture = try DiskCacheFixture { $0.extendedDataStorage = storage }
        let cache = fixture.cache
        let key = "https://example.com/etag.png"
        let sidecar = CacheFileName.sidecar(for: cache.fileURL(forKey: key).lastPathComponent)
        try cache.setData(DiskCacheFixture.bytes(100), extendedData: Data("etag-1".utf8), forKey: key)
        #expect(cache.extendedData(forKey: key) == Data("etag-1".utf8))
        #expect(try fixture.fileNames().contains(sidecar) == (storage == .sidecarFile))

        try cache.setExtendedData(Data("etag-2".utf8), forKey: key)
        #expect(cache.extendedData(forKey: key) == Data("etag-2".utf8))

        // New bytes without extended data: the old validators must not describe them.
        try cache.setData(DiskCacheFixture.bytes(200), forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)

        try cache.setExtendedData(Data("etag-3".utf8), forKey: key)
        try cache.setExtendedData(nil, forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)

        try cache.setExtendedData(Data("etag-4".utf8), forKey: key)
        try cache.removeData(forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)
        #expect(try fixture.fileNames().isEmpty)
    }

    @Test func extendedDataTooLargeForAnAttributeFallsBackToASidecar() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        // ext4 keeps attribute values in one block (4 KB); 64 KB is refused with E2BIG/ENOSPC.
        let big = DiskCacheFixture.bytes(64 * 1024, 0x42)
        try cache.setData(DiskCacheFixture.bytes(10), extendedData: big, forKey: "k")
        #expect(cache.extendedData(forKey: "k") == big)
    }

    @Test func readOnlyDirectoriesAreSearchedAfterTheMainOne() throws {
        let shipped = try DiskCacheFixture(namespace: "shipped")
        try shipped.cache.setData(Data("shipped".utf8), extendedData: Data("v1".utf8), forKey: "k")
        let temporary = try TemporaryDirectory(prefix: "disk-cache-main")
        var configuration = DiskCacheConfiguration()
        configuration.additionalReadOnlyDirectories = [shipped.cache.directory]
        let cache = try DiskCache(directory: temporary.url, namespace: "main", configuration: configuration)

        #expect(try cache.data(forKey: "k") == Data("shipped".utf8))
        #expect(cache.extendedData(forKey: "k") == Data("v1".utf8))
        #expect(cache.containsData(forKey: "k"))
        #expect(cache.totalCount == 0)

        try cache.setData(Data("main".utf8), forKey: "k")
        #expect(try cache.data(forKey: "k") == Data("main".utf8))
        // Removing from the main directory never touches the read-only one.
        try cache.removeData(forKey: "k")
        #expect(try cache.data(forKey: "k") == Data("shipped".utf8))
        #expect(try shipped.cache.data(forKey: "k") == Data("shipped".utf8))
    }

    @Test func emptyFileIsAMissAndIsRemoved() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "k")
        try Data().write(to: cache.fileURL(forKey: "k"))
        #expect(try cache.data(forKey: "k") == nil)
        #expect(!cache.containsData(forKey: "k"))
    }

    @Test func storeRecreatesADirectoryRemovedUnderIt() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        try FileManager.default.removeItem(at: cache.directory)
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "k")
        #expect(try cache.data(forKey: "k") == DiskCacheFixture.bytes(10))
    }

    @Test func removeAllDataEmptiesTheDirectoryAndTheTotals() throws {
        let fixture = try DiskCacheFixture { $0.extendedDataStorage = .sidecarFile }
        let cache = fixture.cache
        for i in 0..<5 { try cache.setData(DiskCacheFixture.bytes(100), extendedData: Data("e".utf8), forKey: "k\(i)") }
        #expect(cache.totalCount == 5)
        try cache.removeAllData()
        #expect(cache.totalCount == 0)
        #expect(cache.totalSize == 0)
        #expect(try fixture.fileNames().isEmpty)
    }

    @Test(arguments: ["", ".", "..", "a/b", "nul\0"])
    func namespaceThatIsNotOnePathComponentIsRefused(namespace: String) throws {
        let temporary = try TemporaryDirectory(prefix: "disk-cache")
        #expect { try DiskCache(directory: temporary.url, namespace: namespace) } throws: { isCacheIO($0) }
    }
}
