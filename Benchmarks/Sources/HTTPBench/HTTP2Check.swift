import Foundation
import WebImageCore
import WebImageHTTPLoader

/// Loads `urls` through a fresh loader at `concurrency` and reports, from the loader's own events,
/// which HTTP versions were used and how many connections were opened: over HTTPS with HTTP/2 the
/// transfers should share one multiplexed connection.
func describeConnections(urls: [URL], concurrency: Int) async throws -> String {
    let client = LoaderClient(concurrency: concurrency, insecure: true)
    let events = client.loader.events()
    let counter = WorkCounter(count: urls.count)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask { while let index = counter.take() { _ = try await client.fetch(urls[index]) } }
        }
        try await group.waitForAll()
    }
    var versions: [String: Int] = [:]
    var newConnections = 0
    var finished = 0
    for await event in events {
        guard case .finished(_, _, _, let metrics) = event else { continue }
        finished += 1
        if let metrics {
            versions[metrics.httpVersion, default: 0] += 1
            if !metrics.reusedConnection { newConnections += 1 }
        }
        if finished == urls.count { break }
    }
    let versionList = versions.sorted { $0.key < $1.key }.map { "HTTP/\($0.key): \($0.value)" }.joined(separator: ", ")
    return "\(urls.count) requests at concurrency \(concurrency): \(versionList); connections opened: \(newConnections)"
}
