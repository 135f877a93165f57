import Foundation

/// Which cache levels an operation touches, or where an image was found.
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable {
    /// No cache: for a result, it came from the loader (the network, a file).
    case none
    /// The in-memory level.
    case memory
    /// The on-disk level.
    case disk
    /// Memory and disk.
    case all

    /// Whether this type includes the memory level.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this type includes the disk level.
    public var includesDisk: Bool { self == .disk || self == .all }
}

/// A cache hit.
public struct CacheQueryResult: Sendable {
    /// The decoded image.
    public var image: Image
    /// The stored bytes, when the hit came from disk (or `.queryMemoryData` asked for them).
    public var data: Data?
    /// Where the image was found.
    public var cacheType: ImageCacheType
    /// ETag / Last-Modified stored with the entry; also for memory hits when the disk level has them,
    /// since `refreshCached` revalidates with them.
    public var validators: CacheValidators?

    /// A hit of `image` found in `cacheType`, with the stored bytes and validators when there are some.
    public init(image: Image, data: Data? = nil, cacheType: ImageCacheType, validators: CacheValidators? = nil) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.validators = validators
    }
}

/// Stores decoded images and their bytes (SDWebImage's `SDImageCache` protocol).
///
/// Every method takes the cache levels it applies to. Implementations do disk work off the
/// caller's thread; `async` lets a caller wait for it.
public protocol ImageCache: Sendable {
    /// The image for `key` in the levels of `cacheType`, memory first. A disk hit is decoded with the
    /// decode options of `options` and `context` (thumbnail size, first frame only, scale).
    func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult?
    /// Stores `image` in memory and `data` on disk, per `cacheType`. Without `data` the image is
    /// serialized for the disk level (context's serializer, else the coder of its format).
    func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext) async throws(ImageError)
    /// Removes `key` from the levels of `cacheType`.
    func removeImage(forKey key: String, cacheType: ImageCacheType) async
    /// The level `key` was found in (`.memory`, `.disk`), or `.none`.
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType
    /// Empties the levels of `cacheType`.
    func clear(cacheType: ImageCacheType) async
    /// The image for `key` if it is in memory, answered synchronously; nil when the cache has no
    /// memory level. Lets the manager answer memory hits on the caller's thread.
    func imageFromMemory(forKey key: String) -> Image?
}

extension ImageCache {
    public func imageFromMemory(forKey key: String) -> Image? { nil }
}

/// Defaults for read-only caches (images bundled with a program, a mounted snapshot): such a cache
/// implements ``ImageCache/queryImage(forKey:options:context:cacheType:)`` and
/// ``ImageCache/containsImage(forKey:cacheType:)``; storing, removing and clearing do nothing.
extension ImageCache {
    /// Keeps nothing: a read-only cache.
    public func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {}
    /// Removes nothing: a read-only cache.
    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {}
    /// Clears nothing: a read-only cache.
    public func clear(cacheType: ImageCacheType) async {}
}

/// The memory storage the two-level cache is written against; `WebImageMemoryCache` provides the default.
public protocol MemoryStorage: Sendable {
    /// The image for `key`, marking it recently used.
    func image(forKey key: String) -> Image?
    /// Stores `image` with its `cost` in bytes, evicting least recently used entries past the limits.
    func setImage(_ image: Image, forKey key: String, cost: Int)
    /// Removes `key`.
    func removeImage(forKey key: String)
    /// Removes everything.
    func removeAllImages()
}

/// Keyed bytes with extra data beside them, whose entries may expire (by age, size or a time to live):
/// the storage the two-level cache is written against, under its memory level. `WebImageDiskCache`'s
/// `DiskCache` is the default; the Redis tier's `RedisCache` is another. Calls may block on I/O: callers
/// run them off threads that must not wait. (Named `DiskStorage` until issue 25.)
public protocol ExpiringDataStorage: Sendable {
    /// The bytes for `key`, nil when there are none.
    func data(forKey key: String) throws(ImageError) -> Data?
    /// Stores `data` for `key` atomically.
    func setData(_ data: Data, forKey key: String) throws(ImageError)
    /// Stores `data` with its extra bytes (nil: none) for `key`, so a reader never sees new bytes with
    /// old validators. The default stores the data, then sets the extended data.
    func setData(_ data: Data, extendedData: Data?, forKey key: String) throws(ImageError)
    /// Extra bytes kept beside the entry (the HTTP validators); nil when there are none.
    func extendedData(forKey key: String) -> Data?
    /// Sets or clears the extra bytes for an existing entry.
    func setExtendedData(_ data: Data?, forKey key: String) throws(ImageError)
    /// Whether an entry exists for `key`.
    func containsData(forKey key: String) -> Bool
    /// Removes `key`.
    func removeData(forKey key: String) throws(ImageError)
    /// Removes everything.
    func removeAllData() throws(ImageError)
    /// Removes entries older than the age limit, then the oldest until under the size limit.
    func removeExpiredData() throws(ImageError)
    /// Bytes stored.
    var totalSize: Int { get }
    /// Entries stored.
    var totalCount: Int { get }
}

extension ExpiringDataStorage {
    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws(ImageError) {
        try setData(data, forKey: key)
        try setExtendedData(extendedData, forKey: key)
    }
}
