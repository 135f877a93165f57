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
    /// Seconds each run keeps the healthy requests going: more than twice the preset's 5 s limits, so
    /// the slow origin's stalls and drips time out and its queue refills their slots during the run.
    static let runSeconds = 12

    /// Measured rounds of each kind, alternated after a warm-up, so both meet the same background load.
    static let rounds = 3

    static func run(healthy: [URL], slow: SlowOrigin) async throws {
        _ = try await latencies(healthy, slow: nil)
        var alone: [[Double]] = []
        var contended: [[Double]] = []
        var slowEnded: [Int] = []
        for _ in 0..<rounds {
            alone.append(try await latencies(healthy, slow: nil).milliseconds)
            let run = try await latencies(healthy, slow: slow)
            contended.append(run.milliseconds)
            slowEnded.append(run.slowEnded)
        }
        print("")
        print(
            "Fairness at the server preset (20 KB files from nginx for \(runSeconds) s, \(healthyConcurrency) in flight; the slow origin has \(slowURLCount) stalled or dripping URLs queued); \(rounds) rounds each, alternated after a warm-up:"
        )
        print("")
        print("| healthy origin | round | p50 ms | p99 ms | max ms |")
        print("|---|---:|---:|---:|---:|")
        for (name, runs) in [("alone", alone), ("with the slow origin", contended)] {
            for (round, values) in runs.enumerated() {
                print(
                    String(
                        format: "| %@ | %d | %.1f | %.1f | %.1f |", name, round + 1, percentile(values, 0.5),
                        percentile(values, 0.99), values.max() ?? 0))
            }
        }
        let medianAlone = percentile(alone.map { percentile($0, 0.99) }, 0.5)
        let medianContended = percentile(contended.map { percentile($0, 0.99) }, 0.5)
        print(
            "slow transfers that ended (timed out) while the healthy ones ran, per round: \(slowEnded.map(String.init).joined(separator: ", "))"
        )
        print(
            String(
                format: "median p99 with / without the slow origin = %.1f / %.1f ms = %.2f (goal: at most 2)",
                medianContended, medianAlone, medianContended / medianAlone))
    }

    /// The server preset, except the SSRF guard: nginx and the slow origin are on loopback.
    static func configuration() -> HTTPLoaderConfiguration {
        var configuration = HTTPLoaderConfiguration.server
        configuration.refusesPrivateAddresses = false
        configuration.coders = ImageCodersManager()
        return configuration
    }

    /// Milliseconds per healthy request, from asking to the answer, and how many slow transfers ended
    /// (freeing their slot for the next slow one) meanwhile.
    static func latencies(_ urls: [URL], slow: SlowOrigin?) async throws -> (milliseconds: [Double], slowEnded: Int) {
        let loader = HTTPLoader(configuration: configuration())
        var slowTokens: [HTTPDownloadToken] = []
        let slowEnded = WorkCounter(count: Int.max)
        if let slow {
            for index in 0..<slowURLCount {
                let url = slow.url(index.isMultiple(of: 2) ? "/stall/\(index)" : "/drip/\(index)")
                if case .success(let token) = loader.download(url, completion: { _ in _ = slowEnded.take() }) {
                    slowTokens.append(token)
                }
            }
        }
        let counter = WorkCounter(count: Int.max)
        let deadline = ContinuousClock.now + .seconds(runSeconds)
        let results = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<healthyConcurrency {
                group.addTask {
                    var mine: [Double] = []
                    while ContinuousClock.now < deadline, let index = counter.take() {
                        let start = ContinuousClock.now
                        let result = await withCheckedContinuation { continuation in
                            _ = loader.requestImage(
                                with: urls[index % urls.count], options: [], context: ImageContext(), progress: nil
                            ) {
                                continuation.resume(returning: $0)
                            }
                        }
                        _ = try result.get()
                        let elapsed = ContinuousClock.now - start
                        mine.append(
                            Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // Read before cancelling: a cancelled caller gets no completion, so the count stays honest.
        let ended = slowEnded.take()!
        for token in slowTokens { token.cancel() }
        return (results, ended)
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
