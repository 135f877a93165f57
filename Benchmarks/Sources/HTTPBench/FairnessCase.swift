import Foundation
import WebImageCore
import WebImageHTTPLoader

/// The fairness case: the healthy origin's (nginx) request latency at the server preset, alone and
/// while another origin holds a queue of stalled and dripping URLs. Prints p50 and p99 of both and
/// their ratio (goal: p99 with the slow origin at most twice p99 without).
enum FairnessCase {
    /// Slow URLs queued before the healthy ones start: half stall, half drip.
    static let slowURLCount = 200
    /// Healthy requests in flight at once, as a busy server's handlers would keep them.
    static let healthyConcurrency = 16

    static func run(healthy: [URL], slow: SlowOrigin) async throws {
        let alone = try await latencies(healthy, slow: nil)
        let contended = try await latencies(healthy, slow: slow)
        print("")
        print("Fairness at the server preset (\(healthy.count) x 20 KB from nginx, \(healthyConcurrency) in flight; the slow origin has \(slowURLCount) stalled or dripping URLs queued):")
        print("")
        print("| healthy origin | p50 ms | p99 ms | max ms |")
        print("|---|---:|---:|---:|")
        for (name, values) in [("alone", alone), ("with the slow origin", contended)] {
            print(String(format: "| %@ | %.1f | %.1f | %.1f |", name, percentile(values, 0.5), percentile(values, 0.99), values.max() ?? 0))
        }
        print(String(format: "p99 with / p99 without = %.2f (goal: at most 2)", percentile(contended, 0.99) / percentile(alone, 0.99)))
    }

    /// The server preset, except the SSRF guard: nginx and the slow origin are on loopback.
    static func configuration() -> HTTPLoaderConfiguration {
        var configuration = HTTPLoaderConfiguration.server
        configuration.refusesPrivateAddresses = false
        configuration.coders = ImageCodersManager()
        return configuration
    }

    /// Milliseconds per healthy request, from asking to the answer.
    static func latencies(_ urls: [URL], slow: SlowOrigin?) async throws -> [Double] {
        let loader = HTTPLoader(configuration: configuration())
        var slowTokens: [HTTPDownloadToken] = []
        if let slow {
            for index in 0..<slowURLCount {
                let url = slow.url(index.isMultiple(of: 2) ? "/stall/\(index)" : "/drip/\(index)")
                if case .success(let token) = loader.download(url, completion: { _ in }) { slowTokens.append(token) }
            }
        }
        let counter = WorkCounter(count: urls.count)
        let results = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<healthyConcurrency {
                group.addTask {
                    var mine: [Double] = []
                    while let index = counter.take() {
                        let start = ContinuousClock.now
                        let result = await withCheckedContinuation { continuation in
                            _ = loader.requestImage(with: urls[index], options: [], context: ImageContext(), progress: nil) {
                                continuation.resume(returning: $0)
                            }
                        }
                        _ = try result.get()
                        let elapsed = ContinuousClock.now - start
                        mine.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        for token in slowTokens { token.cancel() }
        return results
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
