// cache-bench: the disk cache next to plain POSIX file I/O, the memory cache next to Foundation's
// NSCache, and the Redis tier next to redis-benchmark, side by side in one run. `--redis-only` runs only
// the Redis rows. `swift run -c release cache-bench` from the Benchmarks folder.
import Foundation

// A scratch directory on the machine's disk (not tmpfs), removed at the end.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }
var table = ResultTable()
if !CommandLine.arguments.contains("--redis-only") {
    try DiskBenchmarks(root: root).run(into: &table)
    MemoryBenchmarks().run(into: &table)
}
table = try await RedisBenchmarks(root: root).run(adding: table)
print(table.render())
