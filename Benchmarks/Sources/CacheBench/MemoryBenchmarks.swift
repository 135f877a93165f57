import Dispatch
import Foundation
import WebImageCore
import WebImageMemoryCache

/// ``MemoryCache`` next to Foundation's `NSCache`, same keys, same values, same threads.
struct MemoryBenchmarks {
    /// Keys in the working set; every get hits.
    static let keyCount = 10_000
    /// Operations per thread per run.
    static let operations = 2_000_000
    static let rounds = 3

    /// NSCache holds objects: the image in a box, as an app would store it.
    final class Box: Sendable {
        let image: Image
        init(_ image: Image) { self.image = image }
    }

    /// NSCache is documented thread-safe (it locks internally) but is not marked Sendable here.
    struct SharedNSCache: @unchecked Sendable {
        let cache = NSCache<NSString, Box>()
    }

    /// The NSString keys, made once so NSCache is not charged for bridging.
    struct NSKeys: @unchecked Sendable {
        let keys: [NSString]
    }

    func run(into table: inout ResultTable) {
        let keys = (0..<Self.keyCount).map { "https://images.example.com/photos/\($0).jpg" }
        let nsKeys = NSKeys(keys: keys.map { NSString(string: $0) })
        let image = Image(pixels: PixelBuffer(width: 8, height: 8, layout: .rgba8))
        let cost = image.memoryCost
        let box = Box(image)

        for threads in [1, 2] {
            let memory = MemoryCache()
            let ns = SharedNSCache()
            let ops = Double(Self.operations * threads)
            let count = Self.keyCount
            let perThread = Self.operations
            // Sets: every thread walks the keys from its own offset.
            let memorySet = measure(threads) { t in
                for i in 0..<perThread { memory.setImage(image, forKey: keys[(i &+ t &* 7_919) % count], cost: cost) }
            }
            let nsSet = measure(threads) { t in
                for i in 0..<perThread {
                    ns.cache.setObject(box, forKey: nsKeys.keys[(i &+ t &* 7_919) % count], cost: cost)
                }
            }
            // Gets: a scattered walk over keys that are all present.
            let memoryGet = measure(threads) { t in
                var hits = 0
                for i in 0..<perThread where memory.image(forKey: keys[(i &* 7_919 &+ t) % count]) != nil { hits += 1 }
                precondition(hits == perThread)
            }
            let nsGet = measure(threads) { t in
                var hits = 0
                for i in 0..<perThread where ns.cache.object(forKey: nsKeys.keys[(i &* 7_919 &+ t) % count]) != nil {
                    hits += 1
                }
                precondition(hits == perThread)
            }
            let label = threads == 1 ? "1 thread" : "\(threads) threads"
            table.throughput(
                "memory set, \(label)", ours: ops / memorySet, baseline: ops / nsSet,
                baselineName: "NSCache", goal: ">= 2x")
            table.throughput(
                "memory get, \(label)", ours: ops / memoryGet, baseline: ops / nsGet,
                baselineName: "NSCache", goal: ">= 2x")
        }
    }

    /// Best wall time of `rounds` runs of `body` on `threads` threads at once.
    private func measure(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
        Stopwatch.best(of: Self.rounds) {
            DispatchQueue.concurrentPerform(iterations: threads) { body($0) }
        }
    }
}
