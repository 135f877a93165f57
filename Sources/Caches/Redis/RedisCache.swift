import Foundation
import Logging
import WebImageCore

/// A shared cache tier on Redis for fleets of servers: encoded image bytes and their validators, under a
/// namespaced key, with a TTL, on one node or several (consistent hashing).
///
/// It implements Core's `ExpiringDataStorage`, so it can replace the disk level of a `WebImageCache`
/// (`WebImageCache(memory:disk:)`) or sit behind it as a third level (``TieredDiskStorage``, or
/// `WebImageCache(directory:namespace:redis:)`): memory, then disk, then Redis.
///
/// **A cache never fails a load.** Redis down, slow or answering garbage is a miss, counted in
/// ``statistics`` and passed to the `log` closure; nothing here throws. Every call is bounded by the
/// configuration's timeouts, and a node that cannot be reached is skipped (a miss at once) until its
/// reconnect backoff ends. Values carry their lengths and a CRC-32C; one that fails the check is a miss
/// and is deleted.
///
/// Calls block their thread for at most their timeouts (like `ExpiringDataStorage` file I/O): call them off
/// threads that must not wait. `WebImageCache` already does.
///
/// ```swift
/// let redis = try RedisCache(url: ProcessInfo.processInfo.environment["WEBIMAGE_REDIS_URL"] ?? "redis://127.0.0.1")
/// let cache = try WebImageCache(namespace: "thumbnails", redis: redis)
/// ```
public final class RedisCache: ExpiringDataStorage {
    /// The configuration this cache was made with.
    public let configuration: RedisCacheConfiguration
    /// Where the cache logs (failures at `debug`, corrupt values at `warning`).
    public let logger: Logger
    let pools: [RedisNodePool]
    private let ring: ConsistentHashRing
    private let recorder: RedisStatisticsRecorder
    private let writes: RedisWriteQueue
    /// The extended data of entries just read by ``data(forKey:)``, so the ``extendedData(forKey:)`` that
    /// `WebImageCache` asks next costs no second round trip. Guards a small map; each entry is used once.
    private let justRead = Locked(RecentExtendedData())
    /// ``RedisCacheConfiguration/keyPrefix``, built once (it is interpolated from the namespace and
    /// version each time it is read, and every GET needs it).
    private let keyPrefix: String

    /// A cache over `configuration`'s nodes. Connections open on first use.
    /// - Parameters:
    ///   - configuration: The nodes, namespace, timeouts, pool and write policy.
    ///   - logger: Where the cache logs, at `debug`, one line per failure (connect, timeout, command
    ///     failure, dropped write), and at `warning` a value that failed its integrity check.
    ///     `Logger(label: "SwiftWebImage.RedisCache")` by default; the library never bootstraps logging.
    ///     Its metrics (``RedisCacheMetrics``) go to the process's `MetricsSystem`, as every plugin's.
    public init(
        configuration: RedisCacheConfiguration,
        logger: Logger = Logger(label: "SwiftWebImage.RedisCache")
    ) {
        self.configuration = configuration
        self.logger = logger
        keyPrefix = configuration.keyPrefix
        let recorder = RedisStatisticsRecorder(logger: logger)
        // One reply memory for every node's connections; the pools keep it alive.
        let replyMemory = RedisReplyMemory(retainedLimit: configuration.retainedReplyMemory)
        let pools = configuration.nodes.map {
            RedisNodePool(endpoint: $0, configuration: configuration, recorder: recorder, replyMemory: replyMemory)
        }
        self.recorder = recorder
        self.pools = pools
        ring = ConsistentHashRing(names: configuration.nodes.map(\.description))
        writes = RedisWriteQueue(pools: pools, limit: max(1, configuration.maxPendingWrites), recorder: recorder)
    }

    /// A cache over the nodes of `url` (see ``RedisCacheConfiguration/init(url:)``) with default settings.
    /// - Parameters:
    ///   - url: A `redis://` URL.
    ///   - logger: Where the cache logs (see ``init(configuration:logger:)``).
    public convenience init(
        url: String,
        logger: Logger = Logger(label: "SwiftWebImage.RedisCache")
    ) throws(RedisConfigurationError) {
        self.init(configuration: try RedisCacheConfiguration(url: url), logger: logger)
    }

    /// What happened since this cache was made.
    public var statistics: RedisCacheStatistics { recorder.snapshot }

    /// The Redis key of `key`: ``RedisCacheConfiguration/keyPrefix`` followed by the key.
    public func redisKey(forKey key: String) -> String { keyPrefix + key }

    /// The node that holds `key`: an index into ``RedisCacheConfiguration/nodes``.
    public func nodeIndex(forKey key: String) -> Int {
        pools.count == 1 ? 0 : ring.node(for: Array(redisKey(forKey: key).utf8))
    }

    /// Asks every node for `PING`: whether each answered, in ``RedisCacheConfiguration/nodes`` order.
    public func reachableNodes() -> [Bool] {
        pools.map { pool in
            if case .status("PONG")? = pool.run([RedisCommand.make(["PING"])])?.first { return true }
            return false
        }
    }

    /// Whether the node at `index` is waiting out a reconnect backoff.
    public func isNodeDown(_ index: Int) -> Bool { pools[index].isDown }

    // MARK: Reads

    /// The bytes and extended data for `key`; nil on a miss or any failure.
    public func entry(forKey key: String) -> RedisCacheEntry? {
        var pipeline = RedisPipeline(capacity: RedisPipeline.getLength(prefix: keyPrefix, key: key))
        pipeline.appendGET(prefix: keyPrefix, key: key)
        let entry = accept(pools[nodeIndex(forKey: key)].run(pipeline)?.first, key: key)
        if entry != nil { recorder.count(\.hits) }
        return entry
    }

    /// The entries of `keys` in one pipelined round trip per node (for prefetching); keys that miss or fail
    /// are absent from the result.
    public func entries(forKeys keys: [String]) -> [String: RedisCacheEntry] {
        var pipelines = [RedisPipeline](repeating: RedisPipeline(), count: pools.count)
        var keysByNode = [[String]](repeating: [], count: pools.count)
        var seen = Set<String>(minimumCapacity: keys.count)
        for key in keys where seen.insert(key).inserted {
            let node = nodeIndex(forKey: key)
            pipelines[node].appendGET(prefix: keyPrefix, key: key)
            keysByNode[node].append(key)
        }
        var found = [String: RedisCacheEntry](minimumCapacity: seen.count)
        for (node, nodeKeys) in keysByNode.enumerated() where !nodeKeys.isEmpty {
            let replies = pools[node].run(pipelines[node])
            for (index, key) in nodeKeys.enumerated() {
                if let entry = accept(replies?[index], key: key) { found[key] = entry }
            }
        }
        recorder.count(\.hits, by: found.count)
        return found
    }

    /// Checks one GET reply: a valid envelope is an entry (the caller counts the hit); nothing, an error or
    /// a failed check is a miss, and a failed check also deletes the value.
    private func accept(_ reply: RedisReply?, key: String) -> RedisCacheEntry? {
        guard let reply else {
            recorder.count(\.misses)
            return nil
        }
        switch reply {
        case .bulk, .buffer:
            let decoded: (data: Data, extendedData: Data?)?
            if case .buffer(let buffer) = reply {
                decoded = RedisValueEnvelope.decode(buffer)  // no copy of the image bytes
            } else {
                decoded = reply.bytes.flatMap(RedisValueEnvelope.decode)
            }
            // A value that fails the check is deleted. (Another instance may have just replaced it with a good
            // one; that costs one extra miss, never a wrong image.)
            guard let (data, extended) = decoded else {
                recorder.count(
                    \.corruptValues, log: "redis: value of \(key) failed its integrity check; deleted", level: .warning)
                recorder.count(\.misses)
                writes.enqueue(RedisCommand.make("DEL", Data(redisKey(forKey: key).utf8)), node: nodeIndex(forKey: key))
                { _ in }
                return nil
            }
            return RedisCacheEntry(data: data, extendedData: extended)
        case .error(let message):
            recorder.count(\.commandFailures, log: "redis: GET \(key): \(message)")
            recorder.count(\.misses)
            return nil
        default:
            recorder.count(\.misses)
            return nil
        }
    }

    // MARK: Writes

    /// Stores `data` and `extendedData` for `key` with the default TTL, per the write policy. Values over
    /// the size limit are skipped; failures are counted, never thrown.
    public func store(_ data: Data, extendedData: Data?, forKey key: String) {
        guard data.count + (extendedData?.count ?? 0) + RedisValueEnvelope.headerSize <= configuration.maxValueSize,
            let value = RedisValueEnvelope.encode(data, extendedData: extendedData)
        else {
            recorder.count(\.oversizedValues)
            return
        }
        let milliseconds = max(1, configuration.defaultTTL.roundedUpMilliseconds)
        let command = RedisCommand.make(
            "SET", Data(redisKey(forKey: key).utf8), value,
            Data("PX".utf8), Data(String(milliseconds).utf8))
        let node = nodeIndex(forKey: key)
        switch configuration.writePolicy {
        case .writeThrough:
            countStore(pools[node].run([command])?.first)
        case .writeBehind:
            writes.enqueue(command, node: node) { [recorder] reply in
                Self.countStore(reply, recorder: recorder)
            }
        }
    }

    private func countStore(_ reply: RedisReply?) { Self.countStore(reply, recorder: recorder) }

    private static func countStore(_ reply: RedisReply?, recorder: RedisStatisticsRecorder) {
        switch reply {
        case .status?: recorder.count(\.stores)
        case .error(let message)?: recorder.count(\.commandFailures, log: "redis: SET: \(message)")
        default: break  // a failed pipeline was counted by the pool
        }
    }

    /// Waits until queued writes (write-behind, deletions of corrupt values) were sent, at most `timeout`.
    /// True when none is left. For tests, benchmarks and orderly shutdown.
    @discardableResult
    public func waitForPendingWrites(timeout: Duration = .seconds(5)) -> Bool {
        writes.waitUntilEmpty(timeout: timeout)
    }

    // MARK: ExpiringDataStorage

    public func data(forKey key: String) throws(ImageError) -> Data? {
        guard let entry = entry(forKey: key) else { return nil }
        justRead.withLock { $0.insert(entry.extendedData, forKey: key) }
        return entry.data
    }

    public func setData(_ data: Data, forKey key: String) throws(ImageError) {
        store(data, extendedData: nil, forKey: key)
    }

    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws(ImageError) {
        justRead.withLock { $0.remove(key) }
        store(data, extendedData: extendedData, forKey: key)
    }

    public func extendedData(forKey key: String) -> Data? {
        if let remembered = justRead.withLock({ $0.take(key) }) { return remembered }
        return entry(forKey: key)?.extendedData
    }

    /// Reads the entry and stores it again with the new extended data (and a fresh TTL).
    public func setExtendedData(_ data: Data?, forKey key: String) throws(ImageError) {
        justRead.withLock { $0.remove(key) }
        guard let entry = entry(forKey: key) else { return }
        store(entry.data, extendedData: data, forKey: key)
    }

    public func containsData(forKey key: String) -> Bool {
        let reply = pools[nodeIndex(forKey: key)].run([RedisCommand.make("EXISTS", Data(redisKey(forKey: key).utf8))])
        if case .integer(let count)? = reply?.first { return count > 0 }
        return false
    }

    /// Deletes `key` (waiting for the reply, within the timeouts). Never throws.
    public func removeData(forKey key: String) throws(ImageError) {
        justRead.withLock { $0.remove(key) }
        _ = pools[nodeIndex(forKey: key)].run([RedisCommand.make("DEL", Data(redisKey(forKey: key).utf8))])
    }

    /// Deletes every key of this namespace and version on every node (`SCAN` + `DEL`, never `FLUSHDB`: the
    /// database may be shared). Other namespaces are untouched.
    public func removeAllData() throws(ImageError) {
        justRead.withLock { $0 = RecentExtendedData() }
        for pool in pools {
            scanKeys(on: pool) { keys in
                _ = pool.run(keys.map { RedisCommand.make("DEL", $0) })
            }
        }
    }

    /// Nothing to do: Redis drops entries when their TTL ends.
    public func removeExpiredData() throws(ImageError) {}

    /// Bytes stored under this namespace on every reachable node (values with their headers; a `SCAN`,
    /// so it costs a round trip per thousand keys: for `cache info`, not for hot paths).
    public var totalSize: Int {
        var total = 0
        for pool in pools {
            scanKeys(on: pool) { keys in
                for reply in pool.run(keys.map { RedisCommand.make("STRLEN", $0) }) ?? [] {
                    if case .integer(let length) = reply { total += length }
                }
            }
        }
        return total
    }

    /// Entries stored under this namespace on every reachable node (a `SCAN`; see ``totalSize``).
    public var totalCount: Int {
        var total = 0
        for pool in pools { scanKeys(on: pool) { total += $0.count } }
        return total
    }

    /// Keys asked of `SCAN` per round trip.
    private static let scanBatch = 1000

    /// Calls `body` with each batch of this namespace's keys on `pool`, until the scan ends or fails.
    private func scanKeys(on pool: RedisNodePool, _ body: ([Data]) -> Void) {
        let pattern = Self.globEscaped(keyPrefix) + "*"
        var cursor = "0"
        repeat {
            guard
                let reply = pool.run([
                    RedisCommand.make(["SCAN", cursor, "MATCH", pattern, "COUNT", String(Self.scanBatch)])
                ])?.first,
                case .array(let parts) = reply, parts.count == 2,
                let next = parts[0].bytes, case .array(let keys) = parts[1]
            else { return }
            let names = keys.compactMap(\.bytes)
            if !names.isEmpty { body(names) }
            cursor = String(decoding: next, as: UTF8.self)
        } while cursor != "0"
    }

    /// `text` with Redis glob characters escaped, so a namespace matches only itself.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

/// The extended data of the last few entries read, each handed out once.
struct RecentExtendedData {
    /// Entries kept: reads and their follow-up `extendedData` calls are paired within a few calls.
    static let capacity = 64
    private var values: [String: Data?] = [:]
    private var order: [String] = []

    mutating func insert(_ value: Data?, forKey key: String) {
        if values.updateValue(value, forKey: key) == nil { order.append(key) }
        if order.count > Self.capacity { values[order.removeFirst()] = nil }
    }

    /// The remembered value (which may be "no extended data"), removing it; nil when none is remembered.
    mutating func take(_ key: String) -> Data?? {
        guard let value = values.removeValue(forKey: key) else { return nil }
        order.removeAll { $0 == key }
        return .some(value)
    }

    mutating func remove(_ key: String) { _ = take(key) }
}
