import Foundation
import WebImageDiskCache
let keys = (0..<10_000).map { "https://images.example.com/photos/\($0).jpg" }
let dir = URL(fileURLWithPath: "/dev/shm/scratch-\(getpid())")
let cache = try DiskCache(directory: dir, namespace: "x")
let data = Data(repeating: 7, count: 20 * 1024)
for k in keys { try cache.setData(data, forKey: k) }
let paths = keys.map { cache.fileURL(forKey: $0).path }
var n = 0
let mode = CommandLine.arguments[1]
let t = try Stopwatch.seconds {
for _ in 0..<50 {
if mode == "cache" { for k in keys { n &+= try cache.data(forKey: k)!.count } }
else if mode == "name" { for k in keys { n &+= DiskCache._scratchName(k).utf8.count } }
else { for p in paths { n &+= PlainFileIO.read(p) } }
}
}
print(mode, t / 5e5 * 1e6, "µs")
try? FileManager.default.removeItem(at: dir)
