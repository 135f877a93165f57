import Foundation
import WebImageCore
import WebImageHTTPLoader

/// Our loader, used as a user would: `requestImage` with a completion.
struct LoaderClient: BenchClient {
    let name = "WebImageHTTPLoader"
    let loader: HTTPLoader
    /// `.allowInvalidSSLCertificates` for the self-signed HTTPS server.
    let options: ImageOptions

    init(concurrency: Int, insecure: Bool = false) {
        options = insecure ? [.allowInvalidSSLCertificates] : []
        var configuration = HTTPLoaderConfiguration()
        configuration.maxConcurrentDownloads = concurrency
        configuration.maxConnectionsPerHost = concurrency
        configuration.coders = ImageCodersManager()
        loader = HTTPLoader(configuration: configuration)
    }

    func fetch(_ url: URL) async throws -> Int {
        let result = await withCheckedContinuation { continuation in
            _ = loader.requestImage(with: url, options: options, context: ImageContext(), progress: nil) {
                continuation.resume(returning: $0)
            }
        }
        return try result.get().data.count
    }

    func shutdown() async throws {}
}
