import Logging
import Metrics
import WebImageCore

/// Counters of what a ``RedisCache`` did since it was made: the metrics a fleet watches. Every failure
/// of Redis shows up here (and in the cache's log, and its ``RedisCacheMetrics/events`` metric) instead of as an error.
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

/// The counters behind ``RedisCache/statistics``, the cache's logger and its metrics, shared by the pools.
final class RedisStatisticsRecorder: Sendable {
    /// Guards the counters; held only to add to one.
    private let counters = Locked(RedisCacheStatistics())
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    var snapshot: RedisCacheStatistics { counters.withLock { $0 } }

    func count(_ counter: WritableKeyPath<RedisCacheStatistics, Int>, by amount: Int = 1) {
        counters.withLock { $0[keyPath: counter] += amount }
        // A metric object per recording, as every plugin: one made before the application bootstraps its
        // backend would stay a no-op for good. Skipped while nothing is bootstrapped.
        guard amount > 0, !(MetricsSystem.factory is NOOPMetricsHandler) else { return }
        Counter(label: RedisCacheMetrics.events, dimensions: [("event", Self.eventName(counter))]).increment(by: amount)
    }

    /// Counts, and logs `message` at `level` (`debug` unless the failure deserves more).
    func count(
        _ counter: WritableKeyPath<RedisCacheStatistics, Int>, log message: @autoclosure () -> String,
        level: Logger.Level = .debug
    ) {
        count(counter)
        logger.log(level: level, "\(message())")
    }

    /// The `event` dimension of ``RedisCacheMetrics/events`` for a counter of ``RedisCacheStatistics``.
    static func eventName(_ counter: WritableKeyPath<RedisCacheStatistics, Int>) -> String {
        switch counter {
        case \RedisCacheStatistics.hits: "hit"
        case \RedisCacheStatistics.misses: "miss"
        case \RedisCacheStatistics.stores: "store"
        case \RedisCacheStatistics.droppedWrites: "dropped_write"
        case \RedisCacheStatistics.oversizedValues: "oversized_value"
        case \RedisCacheStatistics.corruptValues: "corrupt_value"
        case \RedisCacheStatistics.connectFailures: "connect_failure"
        case \RedisCacheStatistics.timeouts: "timeout"
        case \RedisCacheStatistics.commandFailures: "command_failure"
        case \RedisCacheStatistics.skippedWhileDown: "skipped_while_down"
        case \RedisCacheStatistics.poolWaitTimeouts: "pool_wait_timeout"
        case \RedisCacheStatistics.connectionsOpened: "connection_opened"
        default: "other"
        }
    }
}
