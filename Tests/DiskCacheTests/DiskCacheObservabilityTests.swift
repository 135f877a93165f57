import Foundation
import Logging
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageMemoryCache
import WebImageTestSupport

/// What the disk and two-level caches tell an operator. Metrics go to the process's one test backend,
/// shared with suites running in parallel: counters are checked for growth, meters for a recording.
@Suite("Disk cache: logs and metrics")
struct DiskCacheObservabilityTests {
    @Test func aTrimLogsWhatItRemovedAndKeptAndIsCounted() async throws {
        let metrics = TestBackends.metrics
        let trimsBefore = metrics.counterTotal(label: DiskCacheMetrics.trims, dimensions: [("result", "success")])
        let temporary = try TemporaryDirectory(prefix: "observed-trim")
        let log = RecordingLog()
        var configuration = DiskCacheConfiguration()
        configuration.maxDiskSize = 10_000
        let disk = try DiskCache(
            directory: temporary.url, namespace: "trim", configuration: configuration,
            logger: log.logger(level: .debug))
        for index in 0..<4 { try disk.setData(Data(count: 4_000), forKey: "key-\(index)") }
        await disk.waitForMaintenance()
        try disk.removeExpiredData()
        let trims = log.entries("trim finished")
        #expect(!trims.isEmpty)
        let evicted = trims.compactMap { $0.metadata["evicted"].flatMap { Int("\($0)") } }.reduce(0, +)
        #expect(evicted >= 2, "the 16,000 bytes go down to at most half the 10,000 byte limit")
        // Background and explicit trims may both log, in either order: one of them got down to half the limit.
        let kept = trims.compactMap { $0.metadata["kept_bytes"].flatMap { Int("\($0)") } }
        #expect((kept.min() ?? .max) <= 5_000)
        #expect(log.levels == [.debug])
        #expect(
            metrics.counterTotal(label: DiskCacheMetrics.trims, dimensions: [("result", "success")])
                >= trimsBefore + 1)
        #expect(try !metrics.expectMeter(DiskCacheMetrics.bytes).values.isEmpty)
        #expect(try !metrics.expectMeter(DiskCacheMetrics.entries).values.isEmpty)
    }

    @Test func theFirstIndexScanIsLogged() throws {
        let temporary = try TemporaryDirectory(prefix: "observed-scan")
        let first = try DiskCache(directory: temporary.url, namespace: "scan")
        try first.setData(Data(count: 300), forKey: "a")
        try first.setData(Data(count: 200), forKey: "b")
        let log = RecordingLog()
        let second = try DiskCache(directory: temporary.url, namespace: "scan", logger: log.logger(level: .debug))
        #expect(second.totalCount == 2)
        let loaded = try #require(log.entries("index loaded").first)
        #expect(loaded.metadata["entries"] == "2")
        #expect(loaded.metadata["bytes"] == "500")
    }

    @Test func anUndecodableDiskEntryIsLoggedThroughTheRequestsLoggerAsAMiss() async throws {
        let temporary = try TemporaryDirectory(prefix: "observed-two-level")
        let configured = RecordingLog()
        let cache = try WebImageCache(
            directory: temporary.url, namespace: "images",
            coder: ImageCodersManager(coders: [RawImageCoder()]),
            logger: configured.logger(level: .debug))
        let key = "https://example.com/broken.raw"
        try cache.disk.setData(Data("RAWI not really".utf8), forKey: key)
        let perRequest = RecordingLog()
        var context = ImageContext()
        context.logger = perRequest.logger(level: .debug)
        #expect(await cache.queryImage(forKey: key, options: [], context: context, cacheType: .disk) == nil)
        let miss = try #require(perRequest.entries("disk entry not decoded; treated as a miss").first)
        #expect(miss.metadata["key"] == "\(key)")
        #expect(configured.messages.isEmpty)
    }
}
