import Foundation
import WebImageCore

/// A `ExpiringDataStorage` of two tiers: this machine's disk first, a shared ``RedisCache`` behind it. Given to
/// `WebImageCache` as its disk level, it makes the three-level cache: memory, disk, Redis.
///
/// - Read: the local tier; on a miss, Redis. A Redis hit is written to the local tier (and `WebImageCache`
///   puts the decoded image in memory), so the next read stays on this machine.
/// - Write: the local tier, then Redis per ``RedisCacheConfiguration/writePolicy`` (write-through waits
///   for Redis, write-behind queues). A Redis failure never fails the write; a local failure does, as it
///   would without Redis.
/// - Maintenance (`removeAllData`, `removeExpiredData`, sizes) applies to the local tier only: one
///   instance clearing its disk must not empty the fleet's cache. Call ``shared``'s methods for that.
public final class TieredDiskStorage: ExpiringDataStorage {
    /// This machine's tier.
    public let local: any ExpiringDataStorage
    /// The fleet's tier.
    public let shared: RedisCache

    /// Tiers `local` in front of `shared`.
    public init(local: any ExpiringDataStorage, shared: RedisCache) {
        self.local = local
        self.shared = shared
    }

    public func data(forKey key: String) throws(ImageError) -> Data? {
        if let data = try? local.data(forKey: key) { return data }
        guard let entry = shared.entry(forKey: key) else { return nil }
        promote(entry, forKey: key)
        return entry.data
    }

    public func setData(_ data: Data, forKey key: String) throws(ImageError) {
        try setData(data, extendedData: nil, forKey: key)
    }

    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws(ImageError) {
        try local.setData(data, extendedData: extendedData, forKey: key)
        shared.store(data, extendedData: extendedData, forKey: key)
    }

    public func extendedData(forKey key: String) -> Data? {
        if local.containsData(forKey: key) { return local.extendedData(forKey: key) }
        return shared.extendedData(forKey: key)
    }

    public func setExtendedData(_ data: Data?, forKey key: String) throws(ImageError) {
        if local.containsData(forKey: key) { try local.setExtendedData(data, forKey: key) }
        try shared.setExtendedData(data, forKey: key)
    }

    public func containsData(forKey key: String) -> Bool {
        local.containsData(forKey: key) || shared.containsData(forKey: key)
    }

    /// Removes `key` from both tiers, so no other instance serves it again from Redis.
    public func removeData(forKey key: String) throws(ImageError) {
        try shared.removeData(forKey: key)
        try local.removeData(forKey: key)
    }

    /// Empties the local tier only (see the type's documentation).
    public func removeAllData() throws(ImageError) { try local.removeAllData() }

    public func removeExpiredData() throws(ImageError) { try local.removeExpiredData() }

    /// The local tier's bytes.
    public var totalSize: Int { local.totalSize }

    /// The local tier's entries.
    public var totalCount: Int { local.totalCount }

    /// Fetches the keys missing from the local tier from Redis in one pipelined round trip per node and
    /// writes the hits to the local tier. Returns how many were promoted. For prefetching a page's images.
    @discardableResult
    public func prefetch(keys: [String]) -> Int {
        let missing = keys.filter { !local.containsData(forKey: $0) }
        guard !missing.isEmpty else { return 0 }
        let found = shared.entries(forKeys: missing)
        for (key, entry) in found { promote(entry, forKey: key) }
        return found.count
    }

    /// Writes a Redis hit to the local tier; a local failure only costs the next read another Redis trip.
    private func promote(_ entry: RedisCacheEntry, forKey key: String) {
        try? local.setData(entry.data, extendedData: entry.extendedData, forKey: key)
    }
}
