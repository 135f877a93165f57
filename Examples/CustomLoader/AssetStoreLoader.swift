import Foundation
import Synchronization
import WebImageCore

/// Loads `asset://NAME` URLs from an in-memory asset store: a loader for a scheme of its own, in a page.
///
/// Like a network loader, it applies the context's request modifier (which may refuse the request),
/// and it records the headers each request carried so the example can show them.
final class AssetStoreLoader: ImageLoader {
    /// The assets by name, and the headers of every request served. Guarded because loads run concurrently.
    private let state = Mutex<(assets: [String: Data], sentHeaders: [[String: String]])>(([:], []))

    func add(_ data: Data, named name: String) { state.withLock { $0.assets[name] = data } }

    /// Headers of each request served so far, oldest first.
    var sentHeaders: [[String: String]] { state.withLock { $0.sentHeaders } }

    func canRequestImage(for url: URL) -> Bool { url.scheme == "asset" }

    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        var request = ImageRequest(url: url)
        if let modifier = context.requestModifier {
            guard let modified = modifier.modify(request) else {
                completion(.failure(.requestRefused(reason: "the request modifier refused \(url.absoluteString)")))
                return FinishedOperation()
            }
            request = modified
        }
        let name = url.host ?? ""
        let data = state.withLock { state -> Data? in
            state.sentHeaders.append(request.headers)
            return state.assets[name]
        }
        guard let data else {
            completion(.failure(.invalidStatusCode(404)))
            return FinishedOperation()
        }
        progress?(LoadProgress(receivedBytes: Int64(data.count), expectedBytes: Int64(data.count)))
        completion(.success(LoadedImage(data: data, response: ImageResponse(url: url))))
        return FinishedOperation()
    }
}
