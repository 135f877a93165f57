// cache-bench: the disk cache next to plain POSIX file I/O, the memory cache next to Foundation's
// NSCache, the Redis tier next to redis-benchmark, and ImageManager loads over doubles (ManagerBenchmarks),
// side by side in one run. `swift run -c release cache-bench [disk|memory|manager|redis]` from the
// Benchmarks folder runs one section (`--redis-only` is the same as `redis`).
import Foundation

// A scratch directory on the machine's disk (not tmpfs), removed at the end.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }
var table = ResultTable()
// `cache-bench disk`, `memory`, `manager` or `redis`: one section only.
let section = CommandLine.arguments.contains("--redis-only") ? "redis" : CommandLine.arguments.dropFirst().first
if section == nil || section == "disk" { try DiskBenchmarks(root: root).run(into: &table) }
if section == nil || section == "memory" { MemoryBenchmarks().run(into: &table) }
if section == nil || section == "manager" {
    let manager = await ManagerBenchmarks().measure()
    table.time("manager memory-hit load", ours: manager.memoryHit, baseline: nil, unit: "ns")
    table.time("manager full load (loader double + coder double)", ours: manager.fullLoad, baseline: nil, unit: "ns")
}
if section == nil || section == "redis" { table = try await RedisBenchmarks(root: root).run(adding: table) }
print(table.render())
