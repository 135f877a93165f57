/// The names and dimensions of the swift-metrics metrics the Redis tier (``RedisCache``) records, declared
/// by the module that records them (the load flow's are `WebImageMetrics`, in Core).
///
/// Like every plugin, it records through the process's `MetricsSystem`: nothing is recorded anywhere until
/// the application bootstraps a metrics backend, and no metric object is made until then.
public enum RedisCacheMetrics {
    /// Counter of what the Redis tiers of the process did: one increment per count of
    /// ``RedisCacheStatistics``. Dimension: `event` (`hit`, `miss`, `store`, `dropped_write`,
    /// `oversized_value`, `corrupt_value`, `connect_failure`, `timeout`, `command_failure`,
    /// `skipped_while_down`, `pool_wait_timeout`, `connection_opened`).
    public static let events = "webimage_redis_cache_events_total"
}
