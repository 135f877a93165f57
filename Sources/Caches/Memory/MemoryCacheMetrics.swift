/// The names and dimensions of the swift-metrics metrics the memory cache (``MemoryCache``) records, declared by the module that
/// records them (the load flow's are `WebImageMetrics`, in Core).
///
/// Like every plugin, it records through the process's `MetricsSystem`: nothing is recorded anywhere until
/// the application bootstraps a metrics backend.
public enum MemoryCacheMetrics {
    /// Counter of images a memory cache evicted to stay within its cost or count limit. Memory cache
    /// changes are recorded in batches of 64 sets or removals (a metric per set would cost more than
    /// the set), and at once when the cache is emptied or its limits change.
    public static let evictions = "webimage_memory_cache_evictions_total"
    /// Meter of bytes of pixels held by memory caches, over every memory cache of the process.
    public static let cost = "webimage_memory_cache_cost_bytes"
}
