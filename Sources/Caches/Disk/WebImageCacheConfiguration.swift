import Foundation
import WebImageMemoryCache

/// The limits of a `WebImageCache` made by its convenience initializer (SDWebImage's `SDImageCacheConfig`).
///
/// ```swift
/// var configuration = WebImageCacheConfiguration()
/// configuration.memoryCostLimit = 128 << 20      // 128 MB of decoded pixels
/// configuration.disk.maxDiskSize = 1 << 30       // trim to 512 MB when 1 GB is crossed
/// let cache = try WebImageCache(namespace: "thumbnails", configuration: configuration)
/// ```
public struct WebImageCacheConfiguration: Sendable, Hashable {
    /// Most bytes of decoded pixels kept in memory. `MemoryCache/defaultCostLimit` by default (a quarter
    /// of physical memory, at most 512 MB).
    public var memoryCostLimit: Int = MemoryCache.defaultCostLimit
    /// Most images kept in memory. No limit by default.
    public var memoryCountLimit: Int = .max
    /// The disk level's age and size limits, expiry date, read-only directories and durability.
    public var disk = DiskCacheConfiguration()

    /// The default configuration.
    public init() {}
}
