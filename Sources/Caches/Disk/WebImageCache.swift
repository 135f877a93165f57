import Dispatch
import Foundation
import Logging
import WebImageCore
import WebImageMemoryCache

/// The two-level image cache (SDWebImage's `SDImageCache`): decoded images in memory, their bytes on disk.
///
/// It is written against Core's `MemoryStorage` and `ExpiringDataStorage` protocols only, so either level
/// can be replaced by a storage of your own (`init(memory:disk:coder:)`); the convenience initializer
/// uses `MemoryCache` and ``DiskCache``.
///
/// - Query: memory first, on the caller's thread; then the disk off the caller's thread (on it with
///   `queryDiskDataSync`). A disk hit is decoded with the context's coder (else this cache's) and the
///   same `DecodeOptions` as a fresh download (thumbnail size, first frame only, scale), and promoted to
///   memory unless the context's store cache type leaves memory out. Bytes that no coder can decode are
///   removed, so a corrupt or truncated file is one miss, not a miss forever.
/// - Store: the image to memory and the bytes to disk, per cache type. Without bytes the image is
///   serialized: the context's cache serializer, else the coder for the image's format, else PNG. The
///   HTTP validators are stored as the entry's extended data and come back in `CacheQueryResult/validators`.
///
/// ```swift
/// let cache = try WebImageCache(namespace: "avatars")
/// let manager = ImageManager(cache: cache, loader: loaders)
/// ```
public final class WebImageCache: ImageCache {
    /// The memory level.
    public let memory: any MemoryStorage
    /// The disk level.
    public let disk: any ExpiringDataStorage
    /// Decodes disk hits and encodes images stored without bytes, unless the context names a coder.
    public let coder: any ImageCoder
    /// Where the cache logs when no request context gives a logger: disk hits that became misses
    /// (undecodable bytes at `debug`, read failures at `warning`).
    public let logger: Logger
    /// Runs the disk level's blocking calls (and disk-hit decoding) off the callers' threads. Concurrent:
    /// reads of different keys proceed in parallel; the disk level is thread-safe.
    private let ioQueue = DispatchQueue(label: "WebImageCache.io", qos: .userInitiated, attributes: .concurrent)

    /// A cache over the given levels.
    /// - Parameters:
    ///   - memory: The memory level (decoded images by key).
    ///   - disk: The disk level (bytes and extended data by key): a `DiskCache`, a Redis tier, or your own.
    ///   - coder: Decodes disk hits and encodes images stored without data.
    ///     `ImageCodersManager/shared` by default.
    ///   - logger: Where the cache logs when the request's context has no `ImageContext/logger`.
    ///     `Logger(label: "SwiftWebImage.WebImageCache")` by default.
    public init(
        memory: any MemoryStorage, disk: any ExpiringDataStorage, coder: any ImageCoder = ImageCodersManager.shared,
        logger: Logger = Logger(label: "SwiftWebImage.WebImageCache")
    ) {
        self.logger = logger
        self.memory = memory
        self.disk = disk
        self.coder = coder
    }

    /// A cache over a `MemoryCache` and a ``DiskCache`` in `directory/namespace`.
    /// - Parameters:
    ///   - directory: Parent of the namespaced disk directory. ``DiskCache/defaultDirectory`` by default.
    ///   - namespace: One path component naming this cache. `"default"` by default.
    ///   - configuration: Memory and disk limits.
    ///   - coder: Decodes disk hits and encodes images stored without data.
    ///   - logger: Where this cache and its ``DiskCache`` log. `Logger(label: "SwiftWebImage.WebImageCache")`
    ///     by default.
    /// - Throws: `ImageError/cacheIO(reason:)` when the disk directory cannot be created.
    public convenience init(
        directory: URL = DiskCache.defaultDirectory, namespace: String = "default",
        configuration: WebImageCacheConfiguration = WebImageCacheConfiguration(),
        coder: any ImageCoder = ImageCodersManager.shared,
        logger: Logger = Logger(label: "SwiftWebImage.WebImageCache")
    ) throws(ImageError) {
        let memory = MemoryCache(costLimit: configuration.memoryCostLimit, countLimit: configuration.memoryCountLimit)
        let disk = try DiskCache(
            directory: directory, namespace: namespace, configuration: configuration.disk,
            logger: logger)
        self.init(memory: memory, disk: disk, coder: coder, logger: logger)
    }

    // MARK: ImageCache

    public func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        var memoryImage: Image? = nil
        if cacheType.includesMemory, var image = memory.image(forKey: key) {
            if options.contains(.decodeFirstFrameOnly), image.isAnimated { image = image.firstFrameOnly }
            memoryImage = image
        }
        if let memoryImage, !options.contains(.queryMemoryData) {
            guard options.contains(.refreshCached) else {
                return CacheQueryResult(image: memoryImage, cacheType: .memory)
            }
            // Revalidation needs the ETag / Last-Modified kept with the disk entry.
            let validators = await offCallerThread { [disk] in
                disk.extendedData(forKey: key).flatMap { try? JSONDecoder().decode(CacheValidators.self, from: $0) }
            }
            return CacheQueryResult(image: memoryImage, cacheType: .memory, validators: validators)
        }
        guard cacheType.includesDisk else { return memoryImage.map { CacheQueryResult(image: $0, cacheType: .memory) } }
        let query: @Sendable () -> CacheQueryResult? = { [self, memoryImage] in
            queryDisk(key: key, options: options, context: context, memoryImage: memoryImage)
        }
        if options.contains(.queryDiskDataSync) { return query() }
        return await offCallerThread(query)
    }

    public func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {
        if cacheType.includesMemory, let image {
            memory.setImage(image, forKey: key, cost: image.memoryCost)
        }
        guard cacheType.includesDisk, image != nil || data != nil else { return }
        let write: @Sendable () -> Result<Void, ImageError> = { [self] in
            do throws(ImageError) {
                let bytes: Data
                if let data { bytes = data } else { bytes = try serialize(image!, forKey: key, context: context) }
                try disk.setData(bytes, extendedData: try encode(validators), forKey: key)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try await offCallerThread(write).get()
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory.removeImage(forKey: key) }
        guard cacheType.includesDisk else { return }
        // The protocol reports no errors here: a file that could not be removed is still a valid entry.
        await offCallerThread { [disk] in _ = try? disk.removeData(forKey: key) }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if cacheType.includesMemory, memory.image(forKey: key) != nil { return .memory }
        guard cacheType.includesDisk else { return .none }
        return await offCallerThread { [disk] in disk.containsData(forKey: key) } ? .disk : .none
    }

    public func clear(cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory.removeAllImages() }
        guard cacheType.includesDisk else { return }
        await offCallerThread { [disk] in _ = try? disk.removeAllData() }
    }

    public func imageFromMemory(forKey key: String) -> Image? {
        memory.image(forKey: key)
    }

    // MARK: Disk maintenance

    /// Removes expired entries and trims the disk level to its size limit, off the caller's thread.
    public func removeExpiredData() async throws(ImageError) {
        try await offCallerThread { [disk] () -> Result<Void, ImageError> in
            do throws(ImageError) {
                try disk.removeExpiredData()
                return .success(())
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// Bytes stored on disk.
    public var totalDiskSize: Int {
        get async { await offCallerThread { [disk] in disk.totalSize } }
    }

    /// Entries stored on disk.
    public var totalDiskCount: Int {
        get async { await offCallerThread { [disk] in disk.totalCount } }
    }

    // MARK: Internals

    private func offCallerThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            ioQueue.async { continuation.resume(returning: work()) }
        }
    }

    /// The disk half of a query. With `memoryImage` (a memory hit under `queryMemoryData`) the bytes are
    /// only attached to it; otherwise they are decoded, and removed when no coder can make sense of them.
    private func queryDisk(
        key: String, options: ImageOptions, context: ImageContext,
        memoryImage: Image?
    ) -> CacheQueryResult? {
        let found: Data?
        do throws(ImageError) {
            found = try disk.data(forKey: key)
        } catch {
            // A warning, not debug: the caller sees only a miss (and downloads again), so an unreadable
            // disk would otherwise go unnoticed while every load pays for it.
            DiskCacheMetricsRecorder.recordSwallowedError(operation: "read")
            (context.logger ?? logger).warning(
                "disk read failed; treated as a miss",
                metadata: [
                    "key": "\(key)", "error": "\(error)",
                ])
            found = nil
        }
        guard let data = found else {
            return memoryImage.map { CacheQueryResult(image: $0, cacheType: .memory) }
        }
        let validators = disk.extendedData(forKey: key).flatMap {
            try? JSONDecoder().decode(CacheValidators.self, from: $0)
        }
        if let memoryImage {
            return CacheQueryResult(image: memoryImage, data: data, cacheType: .memory, validators: validators)
        }
        let decoder = context.imageCoder ?? coder
        let image: Image
        do throws(ImageError) {
            image = try decoder.decode(data, options: context.decodeOptions(for: options, url: URL(string: key)))
        } catch {
            // Bad bytes, or bytes no coder recognises, are a broken entry: remove it. A known format
            // without a coder here, or an image over this request's pixel limit, may suit another caller.
            var removed = false
            switch error {
            case .badImageData, .unsupportedFormat(.undefined):
                do throws(ImageError) {
                    try disk.removeData(forKey: key)
                    removed = true
                } catch {
                    DiskCacheMetricsRecorder.recordSwallowedError(operation: "remove")
                }
            default: break
            }
            (context.logger ?? logger).debug(
                "disk entry not decoded; treated as a miss",
                metadata: [
                    "key": "\(key)", "error": "\(error)", "removed": "\(removed)",
                ])
            return nil
        }
        if context.storeCacheType.includesMemory {
            memory.setImage(image, forKey: key, cost: image.memoryCost)
        }
        return CacheQueryResult(image: image, data: data, cacheType: .disk, validators: validators)
    }

    /// Bytes for an image stored without any: the context's serializer, else the image's format, else PNG.
    private func serialize(_ image: Image, forKey key: String, context: ImageContext) throws(ImageError) -> Data {
        if let serializer = context.cacheSerializer,
            let data = serializer.cacheData(for: image, originalData: nil, url: URL(string: key))
        {
            return data
        }
        let coders = [context.imageCoder, coder].compactMap { $0 }
        let formats = image.format == .undefined ? [.png] : [image.format, .png]
        for format in formats {
            if let encoder = coders.first(where: { $0.canEncode(to: format) }) {
                return try encoder.encode(image, as: format, options: EncodeOptions())
            }
        }
        throw .unsupportedFormat(image.format == .undefined ? .png : image.format)
    }

    private func encode(_ validators: CacheValidators?) throws(ImageError) -> Data? {
        guard let validators, !validators.isEmpty else { return nil }
        do {
            return try JSONEncoder().encode(validators)
        } catch {
            throw .cacheIO(reason: "cannot encode validators: \(error)")
        }
    }
}
