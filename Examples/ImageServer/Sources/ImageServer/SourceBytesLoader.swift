import Foundation
import WebImage

/// A loader in front of the HTTP loader that keeps the encoded bytes of recently fetched sources, so a
/// request that needs another decode of a source already fetched (a different fit box, or the full size
/// for a crop) decodes those bytes instead of fetching the source again. The decoded-source cache above it
/// only serves the same decode twice; this one makes "ten sizes of one source" one fetch.
///
/// Bounded by bytes, least recently used first out. Requests for one source that overlap in time share
/// one transfer already (the HTTP loader coalesces them); this cache covers the ones that follow.
final class SourceBytesLoader: ImageLoader {
    private let upstream: any ImageLoader
    /// Told of every lookup: true when kept bytes answered it, false when the source is fetched.
    private let onLookup: @Sendable (_ answeredFromKeptBytes: Bool) -> Void
    /// The kept sources by URL, bounded by their bytes.
    private let kept: LRUCache<Entry>

    private struct Entry: Sendable {
        var data: Data
        var response: ImageResponse?
    }

    /// Keeps up to `byteLimit` bytes of sources fetched through `upstream` (0 keeps none) and tells
    /// `onLookup` how each request was answered.
    init(
        upstream: any ImageLoader, byteLimit: Int,
        onLookup: @escaping @Sendable (_ answeredFromKeptBytes: Bool) -> Void = { _ in }
    ) {
        self.upstream = upstream
        self.onLookup = onLookup
        kept = LRUCache(costLimit: max(0, byteLimit))
    }

    /// Bytes of sources kept now.
    var keptByteCount: Int { kept.totalCost }

    func canRequestImage(for url: URL) -> Bool { upstream.canRequestImage(for: url) }

    func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        upstream.shouldBlockFailedURL(url, error: error)
    }

    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        let key = url.absoluteString
        let kept = keptBytes(forKey: key, refreshing: options.contains(.refreshCached))
        onLookup(kept != nil)
        if let kept {
            // The manager decodes them with this request's decode options (its box and budgets).
            completion(.success(LoadedImage(data: kept.data, response: kept.response)))
            return AnsweredOperation()
        }
        return upstream.requestImage(with: url, options: options, context: context, progress: progress) {
            [self] result in
            if case .success(let loaded) = result { keep(loaded, forKey: key) }
            // What a decoding loader decoded was decoded for this request alone: the next request decodes
            // the kept bytes for itself.
            completion(result)
        }
    }

    /// The kept bytes of `url`'s source, without fetching: nil when they are not kept.
    func keptData(for url: URL) -> Data? { kept.value(forKey: url.absoluteString)?.data }

    private func keptBytes(forKey key: String, refreshing: Bool) -> Entry? {
        refreshing ? nil : kept.value(forKey: key)
    }

    /// Keeps `loaded`'s bytes when they fit, evicting the least recently used until the total does.
    private func keep(_ loaded: LoadedImage, forKey key: String) {
        guard !loaded.data.isEmpty else { return }
        // A copy of exactly its size: the loader's body block can be much larger than the body (blocks are
        // recycled best-fit), and the cache counts only the bytes.
        let exact = loaded.data.withUnsafeBytes { Data($0) }
        kept.set(Entry(data: exact, response: loaded.response), forKey: key, cost: exact.count)
    }
}

/// The operation of a load answered before `requestImage` returned: nothing is left to cancel.
private final class AnsweredOperation: ImageOperation {
    func cancel() {}
    var isCancelled: Bool { false }
}
