import Metrics
import WebImageCore

/// The disk cache's metrics (names in `DiskCacheMetrics`), made at each recording: one made before the
/// application bootstraps its backend would stay a no-op for good.
enum DiskCacheMetricsRecorder {
    /// The index totals moved by `bytes` and `entries` (a store, a removal, a scan).
    static func totalsChanged(bytes: Int, entries: Int) {
        if bytes != 0 { Meter(label: DiskCacheMetrics.bytes).increment(by: Double(bytes)) }
        if entries != 0 { Meter(label: DiskCacheMetrics.entries).increment(by: Double(entries)) }
    }

    static func recordTrim(succeeded: Bool) {
        Counter(label: DiskCacheMetrics.trims, dimensions: [("result", succeeded ? "success" : "failure")])
            .increment()
    }

    /// An I/O failure nobody will see as an error; `operation` is `read`, `remove`, `trim` or `scan`.
    static func recordSwallowedError(operation: String) {
        Counter(label: DiskCacheMetrics.ioErrors, dimensions: [("operation", operation)]).increment()
    }
}

extension DiskCache {
    /// Changes the index under its lock and moves the size and entry meters by what changed.
    func updateIndex<Result>(_ change: (inout DiskIndex) -> Result) -> Result {
        let (result, bytes, entries) = index.withLock { index in
            let (size, count) = (index.totalSize, index.count)
            let result = change(&index)
            return (result, index.totalSize - size, index.count - count)
        }
        DiskCacheMetricsRecorder.totalsChanged(bytes: bytes, entries: entries)
        return result
    }
}
