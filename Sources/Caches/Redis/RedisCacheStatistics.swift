import WebImageCore

/// Counters of what a ``RedisCache`` did since it was made: the metrics a fleet watches. Every failure
/// of Redis shows up here (and in the cache's log closure) instead of as an error.
public struct RedisCacheStatistics: Sendable, Hashable {
    /// Reads that found a valid entry.
    public var hits = 0
    /// Reads that found nothing, or nothing usable (every failure below also counts as a miss).
    public var misses = 0
    /// Values written to Redis (acknowledged).
    public var stores = 0
    /// Writes dropped because ``RedisCacheConfiguration/maxPendingWrites`` were already queued.
    public var droppedWrites = 0
    /// Values not stored because they exceed ``RedisCacheConfiguration/maxValueSize``.
    public var oversizedValues = 0
    /// Values that failed their length or checksum check; each was deleted.
    public var corruptValues = 0
    /// Connections that could not be opened (refused, unreachable, timed out, AUTH or SELECT refused).
    public var connectFailures = 0
    /// Commands that timed out on an open connection.
    public var timeouts = 0
    /// Commands that failed otherwise (connection closed, protocol error, error reply).
    public var commandFailures = 0
    /// Calls answered as a miss without trying, because their node was waiting out its reconnect backoff.
    public var skippedWhileDown = 0
    /// Calls that found no free connection within ``RedisCacheConfiguration/poolWaitTimeout``.
    public var poolWaitTimeouts = 0
    /// Connections opened.
    public var connectionsOpened = 0

    /// Every counter at zero.
    public init() {}
}

/// The counters behind ``RedisCache/statistics`` and the optional log closure, shared by the pools.
final class RedisStatisticsRecorder: Sendable {
    /// Guards the counters; held only to add to one.
    private let counters = Locked(RedisCacheStatistics())
    private let log: (@Sendable (String) -> Void)?

    init(log: (@Sendable (String) -> Void)?) { self.log = log }

    var snapshot: RedisCacheStatistics { counters.withLock { $0 } }

    func count(_ counter: WritableKeyPath<RedisCacheStatistics, Int>, by amount: Int = 1) {
        counters.withLock { $0[keyPath: counter] += amount }
    }

    /// Counts, and hands `message` to the log closure.
    func count(_ counter: WritableKeyPath<RedisCacheStatistics, Int>, log message: @autoclosure () -> String) {
        count(counter)
        log?(message())
    }
}
