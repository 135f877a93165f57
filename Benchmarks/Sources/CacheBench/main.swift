// cache-bench: the disk cache next to plain POSIX file I/O, and the memory cache next to Foundation's
// NSCache, side by side in one run. `swift run -c release cache-bench` from the Benchmarks folder.
import Foundation

// A scratch directory on the machine's disk (not tmpfs), removed at the end.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }
var table = ResultTable()
try DiskBenchmarks(root: root).run(into: &table)
MemoryBenchmarks().run(into: &table)
print(table.render())
