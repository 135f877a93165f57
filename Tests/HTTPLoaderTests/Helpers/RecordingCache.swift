import Foundation
import Synchronization
import WebImageCore

/// A minimal in-memory ``ImageCache`` that keeps the validators stored with each entry, as the disk
/// cache does, so a test can follow a `refreshCached` revalidation end to end.
final class RecordingCache: ImageCache {
    /// Entries by key.
    private let entries = Locked<[String: CacheQueryResult]>([:])

    func validators(forKey key: String) -> CacheValidators? { entries.withLock { $0[key]?.validators } }

    func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        entries.withLock { $0[key] }
    }

    func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {
        guard let image else { return }
        entries.withLock {
            $0[key] = CacheQueryResult(image: image, data: data, cacheType: .disk, validators: validators)
        }
    }

    func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        entries.withLock { $0[key] == nil ? .none : .disk }
    }

    func clear(cacheType: ImageCacheType) async { entries.withLock { $0.removeAll() } }
}
