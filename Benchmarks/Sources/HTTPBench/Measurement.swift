import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Wall time and CPU time of one run over a file set.
struct Measurement {
    let requests: Int
    let seconds: Double
    let cpuSeconds: Double

    var requestsPerSecond: Double { Double(requests) / seconds }
    var cpuMicrosecondsPerRequest: Double { cpuSeconds * 1_000_000 / Double(requests) }
}

/// CPU seconds (user + system) used so far by this process (`RUSAGE_SELF`) or by its waited-for
/// children (`RUSAGE_CHILDREN`).
func cpuSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Hands out indexes 0..<count to concurrent workers.
final class WorkCounter: Sendable {
    private let next = Atomic<Int>(0)
    let count: Int
    init(count: Int) { self.count = count }
    func take() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}

/// Fetches every URL with `concurrency` requests in flight (each worker waits for its answer before
/// sending the next), checking every body's size.
func run(_ client: any BenchClient, urls: [URL], expectedSize: Int, concurrency: Int) async throws -> Measurement {
    let counter = WorkCounter(count: urls.count)
    let cpuBefore = cpuSeconds(RUSAGE_SELF)
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                while let index = counter.take() {
                    let size = try await client.fetch(urls[index])
                    guard size == expectedSize else {
                        throw BenchFailure(description: "\(client.name): \(urls[index]) gave \(size) bytes, expected \(expectedSize)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Measurement(requests: urls.count, seconds: seconds, cpuSeconds: cpuSeconds(RUSAGE_SELF) - cpuBefore)
}
