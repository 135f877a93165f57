import AsyncHTTPClient
import Foundation
import NIOCore

/// swift-server's AsyncHTTPClient (SwiftNIO), its async/await API.
struct AsyncHTTPClientClient: BenchClient {
    let name = "AsyncHTTPClient"
    let client: HTTPClient

    init(concurrency: Int, insecure: Bool = false) {
        var configuration =
            insecure ? HTTPClient.Configuration(certificateVerification: .none) : HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func fetch(_ url: URL) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
        guard response.status == .ok else { throw BenchFailure(description: "AsyncHTTPClient: \(response.status)") }
        let body = try await response.body.collect(upTo: 8 << 20)
        return body.readableBytes
    }

    func shutdown() async throws { try await client.shutdown() }
}
