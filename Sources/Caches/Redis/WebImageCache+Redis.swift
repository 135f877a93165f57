import Foundation
import WebImageCore
import WebImageDiskCache
import WebImageMemoryCache

extension WebImageCache {
    /// The three-level cache: a `MemoryCache`, a `DiskCache` in `directory/namespace`, and `redis`
    /// behind them (a ``TieredDiskStorage`` as the disk level). Redis hits are promoted to disk and memory;
    /// stores reach Redis per its write policy.
    /// - Throws: `ImageError/cacheIO(reason:)` when the disk directory cannot be created.
    public convenience init(
        directory: URL = DiskCache.defaultDirectory, namespace: String = "default",
        configuration: WebImageCacheConfiguration = WebImageCacheConfiguration(),
        redis: RedisCache, coder: any ImageCoder = ImageCodersManager.shared
    ) throws(ImageError) {
        let memory = MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit)
        let disk = try DiskCache(directory: directory, namespace: namespace, configuration: configuration.disk)
        self.init(memory: memory, disk: TieredDiskStorage(local: disk, shared: redis), coder: coder)
    }

    /// The Redis tier of this cache: its disk level when that is a ``RedisCache``, or the shared tier of a
    /// ``TieredDiskStorage``; nil otherwise.
    public var redisTier: RedisCache? {
        (disk as? RedisCache) ?? (disk as? TieredDiskStorage)?.shared
    }
}
