/// The names and dimensions of the swift-metrics metrics the disk cache (``DiskCache``) records, declared by the module that
/// records them (the load flow's are `WebImageMetrics`, in Core).
///
/// Like every plugin, it records through the process's `MetricsSystem`: nothing is recorded anywhere until
/// the application bootstraps a metrics backend.
public enum DiskCacheMetrics {
    /// Meter of bytes held by disk caches, over every disk cache of the process. Moved by stores,
    /// removals and trims; the first index scan of a cache adds what an earlier process left.
    public static let bytes = "webimage_disk_cache_bytes"
    /// Meter of entries held by disk caches, over every disk cache of the process (as ``bytes``).
    public static let entries = "webimage_disk_cache_entries"
    /// Counter of disk cache trims (automatic or asked for). Dimension: `result` (`success`, `failure`).
    public static let trims = "webimage_disk_cache_trims_total"
    /// Counter of disk cache I/O failures that no caller saw as an error (a read that became a miss, a
    /// background trim or index scan that failed). Dimension: `operation` (`read`, `remove`, `trim`, `scan`).
    public static let ioErrors = "webimage_disk_cache_io_errors_total"
}
