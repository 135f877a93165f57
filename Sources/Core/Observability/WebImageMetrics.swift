import Foundation
import Metrics

/// The names and dimensions of the metrics the framework records through swift-metrics.
///
/// Nothing is recorded anywhere until the application bootstraps a metrics backend
/// (`MetricsSystem.bootstrap`, for example with swift-prometheus); until then every recording goes to
/// swift-metrics' no-op handler. Durations are timers in nanoseconds, which exporters show in seconds.
public enum WebImageMetrics {
    /// Counter of finished loads. Dimensions: `result` (`success`, `failure`, `cancelled`) and `source`
    /// (`memory`, `disk`, `network` for a download, `none` for a failure).
    public static let loads = "webimage_loads_total"
    /// Timer of whole loads, from `loadImage` to the final answer. Dimension: `source`, as for ``loads``.
    public static let loadDuration = "webimage_load_duration"
    /// Counter of the manager's cache lookups. Dimensions: `tier` (`memory` or `disk` for a hit, the tiers
    /// asked for a miss: `memory`, `disk` or `all`) and `result` (`hit`, `miss`).
    public static let cacheLookups = "webimage_cache_lookups_total"
    /// Counter of loader answers. Dimension: `result` (`success`, `not_modified`, `failure`).
    public static let downloads = "webimage_downloads_total"
    /// Counter of bytes loaded by loaders (after any decryptor).
    public static let downloadedBytes = "webimage_downloaded_bytes_total"
    /// Timer of decodes by a coders manager. Dimensions: `format` (the decoded format's identifier) and
    /// `result` (`success`, `failure`).
    public static let decodeDuration = "webimage_decode_duration"
    /// Timer of encodes by a coders manager. Dimension: `format` (the requested format).
    public static let encodeDuration = "webimage_encode_duration"
    /// Timer of transformer runs in the load flow. Dimension: `animated` (`true`, `false`).
    public static let transformDuration = "webimage_transform_duration"
    /// Meter of loads started and not finished, over every manager of the process (the queue depth).
    public static let runningLoads = "webimage_running_loads"
    /// Meter of URLs on the failed lists of every manager of the process.
    public static let failedURLs = "webimage_failed_urls"
}

/// The load flow's recordings. Metric objects are made at each recording, not kept: a handle made before
/// the application bootstraps its backend would stay a no-op for good, and making one is cheap (the
/// backend looks its handler up by label and dimensions).
///
/// A load reads ``Telemetry/isMeasuring`` once, as it starts, and calls the recordings of its own steps
/// only when that was true: each read is a task-local lookup, a lock and a cast, and three to six of
/// them were 5 % of a load's instructions. Changes to the failed lists, which also happen outside any
/// load, check for themselves.
enum LoadMetricsRecorder {
    static func recordLoad(result: String, source: String, nanoseconds: Int64) {
        Counter(label: WebImageMetrics.loads, dimensions: [("result", result), ("source", source)]).increment()
        Metrics.Timer(label: WebImageMetrics.loadDuration, dimensions: [("source", source)])
            .recordNanoseconds(nanoseconds)
    }

    static func recordCacheLookup(tier: String, hit: Bool) {
        Counter(label: WebImageMetrics.cacheLookups, dimensions: [("tier", tier), ("result", hit ? "hit" : "miss")])
            .increment()
    }

    static func recordDownload(result: String, bytes: Int) {
        Counter(label: WebImageMetrics.downloads, dimensions: [("result", result)]).increment()
        if bytes > 0 { Counter(label: WebImageMetrics.downloadedBytes).increment(by: bytes) }
    }

    static func recordTransform(animated: Bool, nanoseconds: Int64) {
        Metrics.Timer(label: WebImageMetrics.transformDuration, dimensions: [("animated", "\(animated)")])
            .recordNanoseconds(nanoseconds)
    }

    static func runningLoadsChanged(by delta: Double) {
        Meter(label: WebImageMetrics.runningLoads).increment(by: delta)
    }

    static func failedURLsChanged(by delta: Double) {
        guard Telemetry.isMeasuring else { return }
        Meter(label: WebImageMetrics.failedURLs).increment(by: delta)
    }
}
