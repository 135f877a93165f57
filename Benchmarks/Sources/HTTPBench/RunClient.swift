import Foundation

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
                        throw BenchFailure(
                            description: "\(client.name): \(urls[index]) gave \(size) bytes, expected \(expectedSize)")
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
