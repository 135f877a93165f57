import CLibCrypto
import Foundation
import WebImage
import WebImageRedisCache

/// One encoded answer: the bytes, their MIME type and their entity tag.
struct RenderedImage: Sendable {
    var data: Data
    var contentType: String
    /// A strong ETag (quoted): the first bytes of the SHA-256 of `data`, so equal bytes give equal tags
    /// whichever server instance made them.
    var etag: String
    /// The source's headers that shape the answer's.
    var originHeaders = OriginHeaders()

    init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
        self.etag = Self.etag(of: data)
    }

    init(data: Data, contentType: String, etag: String, originHeaders: OriginHeaders = OriginHeaders()) {
        self.data = data
        self.contentType = contentType
        self.etag = etag
        self.originHeaders = originHeaders
    }

    /// Hex digits of the digest kept in the tag: 128 bits, collision-free for any cache's lifetime.
    static let etagByteCount = 16

    static func etag(of data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        // Pointers live only for this call.
        data.withUnsafeBytes { bytes in
            digest.withUnsafeMutableBytes { out in
                _ = SHA256(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
        }
        let hex = Array("0123456789abcdef".utf8)
        let digits = digest.prefix(etagByteCount).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }
        return "\"" + String(decoding: digits, as: UTF8.self) + "\""
    }
}

/// The result cache: encoded answers by processing key (options, source URL, negotiated format), in a
/// byte-bounded LRU in memory and, when configured, in the framework's storage tiers: a local `DiskCache`,
/// a Redis tier shared by every instance of a fleet (`RedisCache`), or both (`TieredDiskStorage`: local
/// disk first, Redis behind it, Redis hits kept locally). The MIME type and ETag ride in the entry's
/// extended data. Redis being down or slow is a miss, never a failed request.
final class ResultCache: Sendable {
    /// Where an answer was found; the label of the lookup metric.
    enum Tier: String { case memory, disk, redis }

    let memoryLimit: Int
    /// Encoded answers in memory, least recently used out first.
    private let memory: LRUCache<RenderedImage>
    /// The local disk level; nil: none.
    let local: DiskCache?
    /// The Redis level shared by a fleet, behind the local disk; nil: none. Its hits are copied to disk.
    let redis: RedisCache?

    /// `diskLimit` bounds the local disk level in bytes: past it a background trim removes the least
    /// recently stored results until half remains.
    init(
        memoryLimit: Int, directory: URL?, diskLimit: Int = ServerConfiguration.defaultResultDiskLimit,
        redis: RedisCache? = nil
    ) throws(ImageError) {
        self.memoryLimit = memoryLimit
        memory = LRUCache(costLimit: memoryLimit)
        var configuration = DiskCacheConfiguration()
        configuration.maxDiskSize = diskLimit
        local = try directory.map { directory throws(ImageError) in
            try DiskCache(directory: directory, namespace: "results", configuration: configuration)
        }
        self.redis = redis
    }

    /// Whether anything is cached at all (a memory limit of 0 turns the result cache off).
    var isEnabled: Bool { memoryLimit > 0 }

    /// Bytes of answers held in memory now.
    var memoryBytes: Int { memory.totalCost }

    /// The cached answer for `key` and the level that had it. Disk and Redis reads block: call off
    /// latency-critical threads. Redis being down or slow is a miss.
    func lookup(_ key: String) -> (RenderedImage, Tier)? {
        guard isEnabled else { return nil }
        if let hit = memory.value(forKey: key) { return (hit, .memory) }
        if let local, let data = try? local.data(forKey: key),
            let value = Self.rendered(data, header: local.extendedData(forKey: key))
        {
            memory.set(value, forKey: key, cost: value.data.count)
            return (value, .disk)
        }
        if let redis, let entry = redis.entry(forKey: key),
            let value = Self.rendered(entry.data, header: entry.extendedData)
        {
            memory.set(value, forKey: key, cost: value.data.count)
            try? local?.setData(entry.data, extendedData: entry.extendedData, forKey: key)
            return (value, .redis)
        }
        return nil
    }

    /// Stores `value` in every level; a failing level only loses its copy (Redis writes are queued).
    func store(_ value: RenderedImage, forKey key: String) {
        guard isEnabled else { return }
        memory.set(value, forKey: key, cost: value.data.count)
        let header = Data(([value.etag, value.contentType] + value.originHeaders.lines).joined(separator: "\n").utf8)
        try? local?.setData(value.data, extendedData: header, forKey: key)
        redis?.store(value.data, extendedData: header, forKey: key)
    }

    /// An answer from stored bytes and their header (`ETag` line, the MIME type, then the source's
    /// headers as `Name: value` lines).
    private static func rendered(_ data: Data, header: Data?) -> RenderedImage? {
        guard let header, let text = String(data: header, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        return RenderedImage(
            data: data, contentType: String(parts[1]), etag: String(parts[0]),
            originHeaders: OriginHeaders(lines: parts.dropFirst(2)))
    }
}
