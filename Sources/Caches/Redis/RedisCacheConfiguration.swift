import Foundation

/// Everything a ``RedisCache`` needs: the nodes, the key namespace, entry limits, timeouts, the pool and
/// how stores reach Redis. Every default is stated on its property.
///
/// ```swift
/// var configuration = try RedisCacheConfiguration(url: "redis://:secret@10.0.0.7:6379/2")
/// configuration.defaultTTL = .seconds(3600)
/// let redis = RedisCache(configuration: configuration)
/// ```
public struct RedisCacheConfiguration: Sendable, Hashable {
    /// How a store reaches Redis.
    public enum WritePolicy: String, Sendable, Hashable, CaseIterable {
        /// The store waits for Redis to acknowledge (bounded by the write and read timeouts); a failure is
        /// counted, never thrown. The next instance asking finds the entry as soon as the store returns.
        case writeThrough
        /// The store queues the write and returns at once; at most ``RedisCacheConfiguration/maxPendingWrites``
        /// writes wait, further ones are dropped and counted. A cache fill never waits for the network.
        case writeBehind
    }

    /// The nodes; keys are spread over several by consistent hashing. At least one.
    public var nodes: [RedisEndpoint]
    /// Names this cache's keys in a shared Redis: keys are `namespace:version:cacheKey`. `"webimage"` by default.
    public var namespace: String = "webimage"
    /// Bump to orphan every entry written by an older layout or decoder (they expire by TTL). 1 by default.
    public var version: Int = 1
    /// Lifetime of an entry (`SET ... PX`, whole milliseconds, at least one). 7 days by default (the disk
    /// cache's age limit).
    public var defaultTTL: Duration = .seconds(7 * 24 * 3600)
    /// Largest value stored, in bytes (image plus validators); larger ones are skipped and counted. Also
    /// the largest value read: a longer one (stored by a fleet member with a higher limit, or not ours) is
    /// skipped on the wire and answered as a miss, so a reply never makes this process allocate more.
    /// 5 MB by default: a big photo, well under Redis's 512 MB string limit, and what a server can move
    /// without stalling the other clients of a single-threaded Redis.
    public var maxValueSize: Int = 5 << 20
    /// Connection establishment limit. 250 ms by default: a loopback or LAN Redis answers in under a
    /// millisecond, so a node that takes longer is down for a cache's purposes. hiredis counts whole
    /// milliseconds, so a fraction is rounded up (as are those of the other timeouts).
    public var connectTimeout: Duration = .milliseconds(250)
    /// Limit for receiving one command's (or one pipeline's) replies. 250 ms by default.
    public var readTimeout: Duration = .milliseconds(250)
    /// Limit for sending one command (or one pipeline). 250 ms by default.
    public var writeTimeout: Duration = .milliseconds(250)
    /// Connections kept open per node; also the most commands in flight per node. 8 by default: a few
    /// per core of a typical server, far below Redis's default 10,000 clients even for a large fleet.
    public var connectionsPerNode: Int = 8
    /// How long a caller waits for a free connection before the call counts as a miss. 250 ms by default.
    public var poolWaitTimeout: Duration = .milliseconds(250)
    /// First pause before reconnecting to a node that failed; doubles per failure. 100 ms by default.
    public var reconnectBackoffInitial: Duration = .milliseconds(100)
    /// Longest pause between reconnection attempts. 5 s by default.
    public var reconnectBackoffMax: Duration = .seconds(5)
    /// How stores reach Redis. ``WritePolicy/writeBehind`` by default.
    public var writePolicy: WritePolicy = .writeBehind
    /// Bytes of reply memory kept for reuse once the values read into it are freed, in bytes. 8 MB by
    /// default: sixteen-value multi-gets of 100 KB images on four connections. Without a reserve, reading a
    /// few hundred kilobytes per round trip from threads other than the main one makes glibc return the
    /// memory to the kernel and fault it in again each time. 0 keeps nothing.
    public var retainedReplyMemory: Int = 8 << 20
    /// How long a connection waiting for a reply keeps its CPU, asking the socket again (and yielding to
    /// any other runnable thread) between tries, before it sleeps. 200 µs by default, at most 1 ms; `.zero`
    /// never spins. A Redis on the same machine or rack answers within tens of microseconds, and waking a
    /// CPU that went idle costs about as long again, more on a virtual machine: on the 2-core VM of
    /// `Benchmarks/README.md` a 20 KB GET took less CPU time with the spin than without. A connection whose
    /// replies miss the window skips it for up to the next 63 waits, so a distant server costs little.
    public var replySpin: Duration = .microseconds(200)
    /// Most queued writes under ``WritePolicy/writeBehind`` (and removals); more are dropped. 256 by
    /// default: with 5 MB values that bounds queued memory at 1.25 GB in the worst case, 5 MB with
    /// typical 20 KB images.
    public var maxPendingWrites: Int = 256

    /// A configuration for the given nodes with every other value at its default.
    /// - Throws: ``RedisConfigurationError/noNodes`` for an empty list.
    public init(nodes: [RedisEndpoint]) throws(RedisConfigurationError) {
        guard !nodes.isEmpty else { throw .noNodes }
        self.nodes = nodes
    }

    /// ``replySpin`` in whole microseconds, within 0...1000.
    var replySpinMicroseconds: Int {
        let (seconds, attoseconds) = replySpin.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        if seconds > 0 { return Self.maxReplySpinMicroseconds }
        return min(Int(attoseconds / 1_000_000_000_000), Self.maxReplySpinMicroseconds)
    }

    /// The longest spin ``replySpin`` takes: a wait that lasts longer is better spent asleep.
    static let maxReplySpinMicroseconds = 1000

    /// The prefix of every key: `namespace:version:`.
    public var keyPrefix: String { "\(namespace):\(version):" }
}
