import Foundation
import Glibc
import WebImageDiskCache

/// The disk cache next to plain POSIX I/O on the same machine, directory and files.
struct DiskBenchmarks {
    /// Entries of the store/query runs, and their size (a typical thumbnail).
    static let entryCount = 10_000
    static let entrySize = 20 * 1024
    /// Entries of the cold-start and trim runs (1 KB each, to keep the disk footprint at 100 MB).
    static let largeCount = 100_000
    static let rounds = 3
    static let queryRounds = 20

    let root: URL

    func keys(_ count: Int) -> [String] {
        (0..<count).map { "https://images.example.com/photos/\($0).jpg" }
    }

    func payload(_ size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
    }

    func freshDirectory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func run(into table: inout ResultTable) throws {
        let keys = keys(Self.entryCount)
        let data = payload(Self.entrySize)
        let n = Double(Self.entryCount)

        // Store: each round into new, empty directories, plain and cache alternating which goes first.
        // Nothing is deleted until every round is done: ext4 makes file creation slow for a while after
        // many deletions (it skips recently freed inodes), which would penalise whichever side ran next.
        var cache: DiskCache! = nil
        var plainStore = Double.infinity, cacheStore = Double.infinity
        let names = keys.indices.map { "\($0).jpg" }
        for round in 0..<(Self.rounds * 2) {
            let plainDirectory = try freshDirectory("plain-\(round)").path
            let directory = try freshDirectory("cache-\(round)")
            cache = try DiskCache(directory: directory, namespace: "bench")
            let storing = cache!
            let plain = {
                min(
                    plainStore,
                    Stopwatch.seconds {
                        for name in names { PlainFileIO.store(data, directory: plainDirectory, name: name) }
                    })
            }
            let ours = {
                min(cacheStore, try Stopwatch.seconds { for key in keys { try storing.setData(data, forKey: key) } })
            }
            // Flush earlier writes before each timed half, so neither pays for the other's writeback.
            sync()
            if round % 2 == 0 {
                plainStore = plain()
                sync()
                cacheStore = try ours()
            } else {
                cacheStore = try ours()
                sync()
                plainStore = plain()
            }
        }
        table.time(
            "disk store, 10,000 x 20 KB (per entry)", ours: cacheStore / n * 1e6, baseline: plainStore / n * 1e6,
            baselineName: "write+rename", goal: "<= 1.3", unit: "µs")

        // Hit query: the cache's own files, read by the cache and by plain open+read, interleaved rounds.
        let paths = keys.map { cache.fileURL(forKey: $0).path }
        var plainQuery = Double.infinity, cacheQuery = Double.infinity
        var bytes = 0
        let reading = cache!
        // Reads are cheap and noisy on a shared machine: many short alternating rounds, best of each.
        for round in 0..<Self.queryRounds {
            let plain = {
                min(plainQuery, Stopwatch.seconds { for path in paths { bytes &+= PlainFileIO.read(path) } })
            }
            let ours = {
                min(
                    cacheQuery,
                    try Stopwatch.seconds {
                        for key in keys { bytes &+= try reading.data(forKey: key)?.count ?? 0 }
                    })
            }
            if round % 2 == 0 {
                plainQuery = plain()
                cacheQuery = try ours()
            } else {
                cacheQuery = try ours()
                plainQuery = plain()
            }
        }
        precondition(bytes > 0)
        table.time(
            "disk hit query, 20 KB (per entry)", ours: cacheQuery / n * 1e6, baseline: plainQuery / n * 1e6,
            baselineName: "open+read", goal: "<= 1.2", unit: "µs")
        cache = nil
        for round in 0..<(Self.rounds * 2) {
            try FileManager.default.removeItem(at: root.appendingPathComponent("plain-\(round)"))
            try FileManager.default.removeItem(at: root.appendingPathComponent("cache-\(round)"))
        }
        sync()

        // Cold start and trim over 100,000 entries.
        let large = try freshDirectory("large")
        let small = payload(1_024)
        let filling = try DiskCache(directory: large, namespace: "bench")
        for key in self.keys(Self.largeCount) { try filling.setData(small, forKey: key) }
        var total = 0
        let coldStart = try Stopwatch.seconds {
            let reopened = try DiskCache(directory: large, namespace: "bench")
            total = reopened.totalSize
        }
        precondition(total == Self.largeCount * 1_024, "cold start counted \(total) bytes")
        table.time("cold start, 100,000 entries: open + totalSize", ours: coldStart * 1e3, baseline: nil, unit: "ms")

        var configuration = DiskCacheConfiguration()
        configuration.maxDiskSize = total - 1
        let trimming = try DiskCache(directory: large, namespace: "bench", configuration: configuration)
        let trim = try Stopwatch.seconds { try trimming.removeExpiredData() }
        precondition(trimming.totalSize <= total / 2, "trim left \(trimming.totalSize) bytes")
        table.time("trim 100,000 entries to half (50,000 removed)", ours: trim * 1e3, baseline: nil, unit: "ms")
        try FileManager.default.removeItem(at: large)
    }
}
