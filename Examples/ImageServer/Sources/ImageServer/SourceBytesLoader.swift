import Foundation
import Synchronization
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
    private let byteLimit: Int
    /// Told of every lookup: true when kept bytes answered it, false when the source is fetched.
    private let onLookup: @Sendable (_ answeredFromKeptBytes: Bool) -> Void
    /// Guards the entries, their byte total and the use clock.
    private let state = Mutex(State())

    private struct Entry {
        var data: Data
        var response: ImageResponse?
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0
    }

    /// Keeps up to `byteLimit` bytes of sources fetched through `upstream` (0 keeps none) and tells
    /// `onLookup` how each request was answered.
    init(upstream: any ImageLoader, byteLimit: Int,
         onLookup: @escaping @Sendable (_ answeredFromKeptBytes: Bool) -> Void = { _ in }) {
        self.upstream = upstream
        self.byteLimit = max(0, byteLimit)
        self.onLookup = onLookup
    }

    func canRequestImage(for url: URL) -> Bool { upstream.canRequestImage(for: url) }

    func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool { upstream.shouldBlockFailedURL(url, error: error) }

    func requestImage(with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
                      completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void) -> any ImageOperation {
        let key = url.absoluteString
        let kept = keptBytes(forKey: key, refreshing: options.contains(.refreshCached))
        onLookup(kept != nil)
        if let kept {
            // The manager decodes them with this request's decode options (its box and budgets).
            completion(.success(LoadedImage(data: kept.data, response: kept.response)))
            return AnsweredOperation()
        }
        return upstream.requestImage(with: url, options: options, context: context, progress: progress) { [self] result in
            if case .success(let loaded) = result { keep(loaded, forKey: key) }
            // What a decoding loader decoded was decoded for this request alone: the next request decodes
            // the kept bytes for itself.
            completion(result)
        }
    }

    private func keptBytes(forKey key: String, refreshing: Bool) -> Entry? {
        state.withLock { state in
            guard !refreshing, var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry
        }
    }

    /// Keeps `loaded`'s bytes when they fit, evicting the least recently used until the total does (a
    /// linear scan per eviction: entries are whole source files, a few hundred at most).
    private func keep(_ loaded: LoadedImage, forKey key: String) {
        let size = loaded.data.count
        guard size > 0, size <= byteLimit else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.data.count }
            while state.totalBytes + size > byteLimit,
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
                state.totalBytes -= oldest.value.data.count
            }
            state.clock += 1
            state.entries[key] = Entry(data: loaded.data, response: loaded.response, lastUse: state.clock)
            state.totalBytes += size
        }
    }
}

/// The operation of a load answered before `requestImage` returned: nothing is left to cancel.
private final class AnsweredOperation: ImageOperation {
    func cancel() {}
    var isCancelled: Bool { false }
}
