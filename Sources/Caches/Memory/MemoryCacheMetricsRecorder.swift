import Metrics
import WebImageCore

/// The memory cache's metrics (names in `MemoryCacheMetrics`), made at each recording: one made before
/// the application bootstraps its backend would stay a no-op for good.
///
/// Sets and gets take about 250 ns; making a metric object costs a read lock in swift-metrics that
/// every thread shares, which halved two-thread set throughput in cache-bench when done on every set.
/// So changes are added up under the cache's own lock and recorded every ``reportEvery`` changes, and
/// at once on `removeAllImages` and limit changes.
enum MemoryCacheMetricsRecorder {
    /// Changes between recordings: the meter lags the cache by at most this many sets or removals.
    static let reportEvery = 64

    /// Cost and evictions not recorded yet. Lives under the cache's lock.
    struct Unreported {
        private var costDelta = 0
        private var evictions = 0
        private var changes = 0

        /// Adds one operation's changes; returns what to record now (every ``reportEvery`` changes, or
        /// at once with `now`), and forgets it.
        mutating func add(costDelta: Int, evictions: Int, now: Bool = false) -> (costDelta: Int, evictions: Int)? {
            self.costDelta += costDelta
            self.evictions += evictions
            changes += 1
            guard now || changes >= MemoryCacheMetricsRecorder.reportEvery else { return nil }
            defer { self = Unreported() }
            return (self.costDelta, self.evictions)
        }
    }

    /// Records a change of the bytes held and the images evicted; nothing for nil or no change.
    static func record(_ changes: (costDelta: Int, evictions: Int)?) {
        guard let (costDelta, evicted) = changes else { return }
        if costDelta != 0 { Meter(label: MemoryCacheMetrics.cost).increment(by: Double(costDelta)) }
        if evicted > 0 { Counter(label: MemoryCacheMetrics.evictions).increment(by: evicted) }
    }
}
