import Foundation
import Synchronization
import WebImageCore

/// A thread-safe LRU memory cache of decoded images, bounded by total cost (bytes of pixels) and by
/// count (SDWebImage's `SDMemoryCache`).
///
/// It is a `MemoryStorage` for the two-level image cache, and an `ImageCache` of type `.memory` on
/// its own.
///
/// ```swift
/// let memory = MemoryCache(costLimit: 256 << 20)   // 256 MB of pixels
/// let manager = ImageManager(cache: memory, loader: FileLoader())
/// ```
public final class MemoryCache: MemoryStorage, ImageCache {
    /// Default cost limit: a quarter of physical memory, at most 512 MB; what a long-running server
    /// can spare for decoded pixels without crowding out everything else.
    public static var defaultCostLimit: Int {
        Int(min(UInt64(512 << 20), ProcessInfo.processInfo.physicalMemory / 4))
    }

    /// The entries and their limits. One lock for everything: each operation is O(1) and short.
    /// Images are held in a box, so a hit retains one reference inside the lock and the image's own
    /// fields are copied out after it is dropped.
    private let storage: Locked<State>

    /// The entries, and the metric changes not recorded yet (see `MemoryCacheMetricsRecorder`).
    private struct State {
        var lru: LRUStorage<ImageBox>
        var unreported = MemoryCacheMetricsRecorder.Unreported()
    }

    /// One cached image; a class so that moving it in and out of the lock costs a single retain.
    private final class ImageBox: Sendable {
        let image: Image
        init(_ image: Image) { self.image = image }
    }

    /// A cache holding at most `costLimit` bytes of pixels and `countLimit` images.
    public init(costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = .max) {
        storage = Locked(State(lru: LRUStorage(costLimit: costLimit, countLimit: countLimit)))
    }

    /// Most bytes of pixels held; lowering it evicts at once.
    public var costLimit: Int {
        get { storage.withLock { $0.lru.costLimit } }
        set { setLimits { $0.costLimit = newValue } }
    }

    /// Most images held; lowering it evicts at once.
    public var countLimit: Int {
        get { storage.withLock { $0.lru.countLimit } }
        set { setLimits { $0.countLimit = newValue } }
    }

    /// Changes a limit and evicts at once what no longer fits (released after the lock is dropped).
    private func setLimits(_ change: (inout LRUStorage<ImageBox>) -> Void) {
        let (evicted, changes) = storage.withLock { state in
            let before = state.lru.totalCost
            change(&state.lru)
            let evicted = state.lru.trim()
            return (
                evicted,
                state.unreported.add(
                    costDelta: state.lru.totalCost - before, evictions: evicted.count,
                    now: true)
            )
        }
        MemoryCacheMetricsRecorder.record(changes)
        _ = evicted
    }

    /// Bytes of pixels held now.
    public var totalCost: Int { storage.withLock { $0.lru.totalCost } }
    /// Images held now.
    public var count: Int { storage.withLock { $0.lru.count } }
    /// Keys from most to least recently used (for tests and diagnostics; O(n)).
    public var keysByRecency: [String] { storage.withLock { $0.lru.keysByRecency } }

    // MARK: MemoryStorage

    public func image(forKey key: String) -> Image? {
        storage.withLock { $0.lru.value(forKey: key) }?.image
    }

    public func setImage(_ image: Image, forKey key: String, cost: Int) {
        // Evicted images are released after the lock is dropped: freeing big buffers can take a while.
        let box = ImageBox(image)
        let (evicted, changes) = storage.withLock { state in
            let before = state.lru.totalCost
            let evicted = state.lru.set(box, forKey: key, cost: cost)
            return (evicted, state.unreported.add(costDelta: state.lru.totalCost - before, evictions: evicted.count))
        }
        MemoryCacheMetricsRecorder.record(changes)
        _ = evicted
    }

    /// Stores `image` costed by its `Image/memoryCost`.
    public func setImage(_ image: Image, forKey key: String) {
        setImage(image, forKey: key, cost: image.memoryCost)
    }

    public func removeImage(forKey key: String) {
        let (removed, changes) = storage.withLock { state in
            let before = state.lru.totalCost
            let removed = state.lru.remove(key)
            return (removed, state.unreported.add(costDelta: state.lru.totalCost - before, evictions: 0))
        }
        MemoryCacheMetricsRecorder.record(changes)
        _ = removed
    }

    public func removeAllImages() {
        let changes = storage.withLock { state in
            let before = state.lru.totalCost
            state.lru.removeAll()
            return state.unreported.add(costDelta: state.lru.totalCost - before, evictions: 0, now: true)
        }
        MemoryCacheMetricsRecorder.record(changes)
    }

    // MARK: ImageCache (memory level only)

    public func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        guard cacheType.includesMemory, let image = image(forKey: key) else { return nil }
        return CacheQueryResult(image: image, cacheType: .memory)
    }

    public func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {
        guard cacheType.includesMemory, let image else { return }
        setImage(image, forKey: key)
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { removeImage(forKey: key) }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        guard cacheType.includesMemory else { return .none }
        return storage.withLock { $0.lru.peek(key) != nil } ? .memory : .none
    }

    public func clear(cacheType: ImageCacheType) async {
        if cacheType.includesMemory { removeAllImages() }
    }

    public func imageFromMemory(forKey key: String) -> Image? { image(forKey: key) }
}
