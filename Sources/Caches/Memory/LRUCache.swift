import Synchronization

/// A thread-safe map of any values, bounded by total cost and count, that drops the least recently used
/// entries first: the eviction policy of ``MemoryCache`` for things that are not decoded images (encoded
/// answers, downloaded bytes).
///
/// ```swift
/// let answers = LRUCache<Data>(costLimit: 64 << 20)
/// answers.set(data, forKey: url.absoluteString, cost: data.count)
/// let again = answers.value(forKey: url.absoluteString)
/// ```
public final class LRUCache<Value: Sendable>: Sendable {
    /// Guards the entries, their recency order and the cost total.
    private let storage: Mutex<LRUStorage<Value>>

    /// A cache holding at most `costLimit` in total cost and `countLimit` entries.
    public init(costLimit: Int, countLimit: Int = .max) {
        storage = Mutex(LRUStorage(costLimit: costLimit, countLimit: countLimit))
    }

    /// The value for `key`, which becomes the most recently used; nil when absent.
    public func value(forKey key: String) -> Value? {
        storage.withLock { $0.value(forKey: key) }
    }

    /// Stores `value` with `cost` (bytes, usually), evicting the least recently used entries until the
    /// cache is within its limits again. A value costing more than the whole limit is not kept.
    public func set(_ value: Value, forKey key: String, cost: Int) {
        // Evicted values are released after the lock is dropped, so their deinit never runs inside it.
        let evicted: [Value] = storage.withLock { lru in
            if cost > lru.costLimit { return lru.remove(key).map { [$0] } ?? [] }
            return lru.set(value, forKey: key, cost: cost)
        }
        _ = evicted
    }

    /// Forgets `key`.
    public func removeValue(forKey key: String) {
        let removed = storage.withLock { $0.remove(key) }
        _ = removed
    }

    /// Forgets every entry.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// The total cost of the entries held.
    public var totalCost: Int { storage.withLock { $0.totalCost } }

    /// How many entries are held.
    public var count: Int { storage.withLock { $0.count } }

    /// The most total cost held.
    public var costLimit: Int { storage.withLock { $0.costLimit } }
}
