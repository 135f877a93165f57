import Foundation
import Synchronization

/// How an ``ImageCachesManager`` spreads one operation over its caches (SDWebImage's
/// `SDImageCachesManagerOperationPolicy`). The newest registered cache has the highest priority.
public enum CachesOperationPolicy: String, Sendable, Hashable, CaseIterable {
    /// Only the highest-priority (last registered) cache.
    case highestOnly
    /// Only the lowest-priority (first registered) cache.
    case lowestOnly
    /// Every cache at once. A query answers with the first hit to arrive.
    case concurrent
    /// Every cache one after another, highest priority first. A query stops at the first hit.
    case serial
}

/// Several caches acting as one (SDWebImage's `SDImageCachesManager`), with a policy per operation.
public final class ImageCachesManager: ImageCache {
    /// The policies for each operation; `.serial` queries and `.concurrent` writes by default.
    public struct Policies: Sendable, Hashable {
        /// How queries visit the caches: in order until one answers, by default.
        public var query: CachesOperationPolicy = .serial
        /// Which caches store: the highest-priority one (the last added), by default.
        public var store: CachesOperationPolicy = .highestOnly
        /// How removals reach the caches: all at once, by default.
        public var remove: CachesOperationPolicy = .concurrent
        /// How `containsImage` visits the caches: in order until one has the key, by default.
        public var contains: CachesOperationPolicy = .serial
        /// How clearing reaches the caches: all at once, by default.
        public var clear: CachesOperationPolicy = .concurrent
        /// The default policies.
        public init() {}
    }

    /// The process-wide caches manager; empty until a cache is registered.
    public static let shared = ImageCachesManager()

    /// Registered caches (newest last) and policies. Copied out before use: caches run outside the lock.
    private let state: Locked<(caches: [any ImageCache], policies: Policies)>

    /// Caches to act as one (the last one added is asked first) under `policies`.
    public init(caches: [any ImageCache] = [], policies: Policies = Policies()) {
        state = Locked((caches, policies))
    }

    /// The registered caches, lowest priority first.
    public var caches: [any ImageCache] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// The policy of each operation.
    public var policies: Policies {
        get { state.withLock { $0.policies } }
        set { state.withLock { $0.policies = newValue } }
    }

    /// Registers `cache` with the highest priority.
    public func addCache(_ cache: any ImageCache) {
        state.withLock { $0.caches.append(cache) }
    }

    /// The caches an operation under `policy` touches, in the order it touches them.
    private func targets(_ policy: CachesOperationPolicy) -> [any ImageCache] {
        let all = caches
        switch policy {
        case .highestOnly: return all.last.map { [$0] } ?? []
        case .lowestOnly: return all.first.map { [$0] } ?? []
        case .concurrent, .serial: return all.reversed()
        }
    }

    public func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        let policy = policies.query
        let targets = targets(policy)
        if policy != .concurrent {
            for cache in targets {
                if let hit = await cache.queryImage(
                    forKey: key, options: options, context: context, cacheType: cacheType)
                {
                    return hit
                }
            }
            return nil
        }
        return await withTaskGroup(of: CacheQueryResult?.self) { group in
            for cache in targets {
                group.addTask {
                    await cache.queryImage(forKey: key, options: options, context: context, cacheType: cacheType)
                }
            }
            for await result in group {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            return nil
        }
    }

    public func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {
        let policy = policies.store
        let targets = targets(policy)
        if policy != .concurrent {
            for cache in targets {
                try await cache.store(
                    image, data: data, validators: validators, forKey: key,
                    cacheType: cacheType, context: context)
            }
            return
        }
        let failures = await withTaskGroup(of: ImageError?.self) { group in
            for cache in targets {
                group.addTask {
                    do {
                        try await cache.store(
                            image, data: data, validators: validators, forKey: key,
                            cacheType: cacheType, context: context)
                        return nil
                    } catch let error as ImageError {
                        return error
                    } catch {
                        return ImageError.cacheIO(reason: "\(error)")
                    }
                }
            }
            var failures: [ImageError] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        if let first = failures.first { throw first }
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        await forEach(policies.remove) { await $0.removeImage(forKey: key, cacheType: cacheType) }
    }

    public func clear(cacheType: ImageCacheType) async {
        await forEach(policies.clear) { await $0.clear(cacheType: cacheType) }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        let policy = policies.contains
        let targets = targets(policy)
        if policy != .concurrent {
            for cache in targets {
                let found = await cache.containsImage(forKey: key, cacheType: cacheType)
                if found != .none { return found }
            }
            return .none
        }
        return await withTaskGroup(of: ImageCacheType.self) { group in
            for cache in targets { group.addTask { await cache.containsImage(forKey: key, cacheType: cacheType) } }
            for await found in group where found != .none {
                group.cancelAll()
                return found
            }
            return .none
        }
    }

    public func imageFromMemory(forKey key: String) -> Image? {
        for cache in targets(policies.query) {
            if let image = cache.imageFromMemory(forKey: key) { return image }
        }
        return nil
    }

    private func forEach(
        _ policy: CachesOperationPolicy, _ body: @escaping @Sendable (any ImageCache) async -> Void
    ) async {
        let targets = targets(policy)
        if policy == .concurrent {
            await withTaskGroup(of: Void.self) { group in
                for cache in targets { group.addTask { await body(cache) } }
            }
        } else {
            for cache in targets { await body(cache) }
        }
    }
}
