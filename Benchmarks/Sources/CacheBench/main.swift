// cache-bench: the disk cache next to plain POSIX file I/O, and the memory cache next to Foundation's
// NSCache, side by side in one run; then ImageManager loads over doubles (ManagerBenchmarks). `swift run -c release cache-bench` from the Benchmarks folder.
import Foundation

// A scratch directory on the machine's disk (not tmpfs), removed at the end.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }
var table = ResultTable()
// `cache-bench disk`, `cache-bench memory`, `cache-bench manager`: one section only.
let section = CommandLine.arguments.dropFirst().first
if section == nil || section == "disk" { try DiskBenchmarks(root: root).run(into: &table) }
if section == nil || section == "memory" { MemoryBenchmarks().run(into: &table) }
if section == nil || section == "manager" {
    let manager = await ManagerBenchmarks().measure()
    table.time("manager memory-hit load", ours: manager.memoryHit, baseline: nil, unit: "ns")
    table.time("manager full load (loader double + coder double)", ours: manager.fullLoad, baseline: nil, unit: "ns")
}
print(table.render())
