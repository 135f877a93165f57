import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageDiskCache

@Suite("Disk cache expiry and trimming")
struct DiskCacheExpiryTests {
    @Test func entriesOlderThanTheAgeLimitByModificationDateAreRemoved() throws {
        let fixture = try DiskCacheFixture { $0.maxDiskAge = .seconds(3_600) }
        let cache = fixture.cache
        for key in ["old", "fresh", "recent"] { try cache.setData(DiskCacheFixture.bytes(100), forKey: key) }
        try fixture.age("old", accessedSecondsAgo: 0, modifiedSecondsAgo: 7_200)
        try fixture.age("recent", accessedSecondsAgo: 7_200, modifiedSecondsAgo: 1_800)
        try cache.removeExpiredData()
        #expect(!cache.containsData(forKey: "old"))
        #expect(cache.containsData(forKey: "fresh"))
        #expect(cache.containsData(forKey: "recent"))
        #expect(cache.totalCount == 2)
        #expect(cache.totalSize == 200)
    }

    @Test func accessDateExpiryKeepsEntriesThatWereRead() throws {
        let fixture = try DiskCacheFixture {
            $0.maxDiskAge = .seconds(3_600)
            $0.expireType = .accessDate
        }
        let cache = fixture.cache
        for key in ["unread", "read"] {
            try cache.setData(DiskCacheFixture.bytes(100), forKey: key)
            try fixture.age(key, accessedSecondsAgo: 7_200, modifiedSecondsAgo: 7_200)
        }
        #expect(try cache.data(forKey: "read") != nil)
        try cache.removeExpiredData()
        #expect(!cache.containsData(forKey: "unread"))
        #expect(cache.containsData(forKey: "read"))
    }

    @Test func modificationDateExpiryIgnoresReads() throws {
        let fixture = try DiskCacheFixture { $0.maxDiskAge = .seconds(3_600) }
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(100), forKey: "read")
        try fixture.age("read", accessedSecondsAgo: 7_200, modifiedSecondsAgo: 7_200)
        #expect(try cache.data(forKey: "read") != nil)
        try cache.removeExpiredData()
        #expect(!cache.containsData(forKey: "read"))
    }

    @Test func sizeTrimRemovesTheOldestFirstDownToHalfTheLimit() throws {
        // Filled without a limit (so no automatic trim runs meanwhile), then trimmed by a limited cache.
        let fixture = try DiskCacheFixture()
        let keys = (0..<12).map { "entry-\($0)" }
        for (i, key) in keys.enumerated() {
            try fixture.cache.setData(DiskCacheFixture.bytes(1_000), forKey: key)
            // entry-0 is the oldest, a minute apart each; all far newer than any age limit.
            try fixture.age(key, accessedSecondsAgo: 0, modifiedSecondsAgo: Double(12 - i) * 60)
        }
        var configuration = DiskCacheConfiguration()
        configuration.maxDiskSize = 10_000
        let cache = try DiskCache(directory: fixture.temporary.url, namespace: "test", configuration: configuration)
        try cache.removeExpiredData()
        // 12,000 bytes > 10,000: down to 5,000, i.e. the five newest.
        let kept = keys.filter { cache.containsData(forKey: $0) }
        #expect(kept == Array(keys.suffix(5)))
        #expect(cache.totalSize == 5_000)
        #expect(cache.totalCount == 5)
    }

    @Test func storeThatCrossesTheSizeLimitTrimsInTheBackground() async throws {
        let fixture = try DiskCacheFixture { $0.maxDiskSize = 5_000 }
        let cache = fixture.cache
        for i in 0..<6 { try cache.setData(DiskCacheFixture.bytes(1_000), forKey: "k\(i)") }
        await cache.waitForMaintenance()
        #expect(cache.totalSize <= 2_500)
        #expect(cache.totalSize == (try fixture.fileNames()).count * 1_000)
    }

    @Test func trimOnRequestRunsOffTheCallersThread() async throws {
        let fixture = try DiskCacheFixture { $0.maxDiskAge = .seconds(60) }
        let cache = fixture.cache
        try cache.setData(DiskCacheFixture.bytes(10), forKey: "old")
        try fixture.age("old", accessedSecondsAgo: 120, modifiedSecondsAgo: 120)
        try await cache.trim()
        #expect(!cache.containsData(forKey: "old"))
    }

    @Test func aNewCacheOnAnExistingDirectoryCountsItsEntries() throws {
        let fixture = try DiskCacheFixture()
        for i in 0..<5 { try fixture.cache.setData(DiskCacheFixture.bytes(100 * (i + 1)), forKey: "k\(i)") }
        let reopened = try DiskCache(directory: fixture.temporary.url, namespace: "test")
        #expect(reopened.totalCount == 5)
        #expect(reopened.totalSize == 1_500)
        // Updates are counted without a rescan.
        try reopened.setData(DiskCacheFixture.bytes(50), forKey: "k0")
        try reopened.removeData(forKey: "k1")
        #expect(reopened.totalCount == 4)
        #expect(reopened.totalSize == 1_500 - 100 + 50 - 200)
    }

    @Test func trimRemovesLeftoversOfDeadWritersButNotLiveOnes() throws {
        let fixture = try DiskCacheFixture()
        let cache = fixture.cache
        let directory = cache.directory.path
        let stale = CacheFileName.temporaryPrefix + "999999-1"
        let live = CacheFileName.temporaryPrefix + "999999-2"
        let orphan = CacheFileName.sidecar(for: CacheFileName.forKey("gone"))
        for name in [stale, live, orphan] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("x".utf8)))
        }
        let now = Date().timeIntervalSince1970
        try DiskIO.setDates(directory + "/" + stale, access: now - 7_200, modification: now - 7_200)
        try cache.removeExpiredData()
        #expect(try fixture.fileNames() == [live])
    }
}
