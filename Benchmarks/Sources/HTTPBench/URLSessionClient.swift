import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation's URLSession (FoundationNetworking on Linux), no cache.
struct URLSessionClient: BenchClient {
    let name = "URLSession"
    let session: URLSession

    init(concurrency: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    func fetch(_ url: URL) async throws -> Int {
        let (data, response) = try await session.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchFailure(description: "URLSession: \(response)")
        }
        return data.count
    }

    func shutdown() async throws { session.invalidateAndCancel() }
}
