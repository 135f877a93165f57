import CoreMetrics
import Prometheus
import WebImageRedisCache

/// The server's metrics, recorded through swift-metrics into a Prometheus registry of the server's own
/// (no global bootstrap, so several servers in one process, as in the tests, keep separate counts) and
/// served as text on `/metrics`.
struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let queueDepth: CoreMetrics.Gauge
    private let processingTime: CoreMetrics.Timer
    private let sourceFetchTime: CoreMetrics.Timer

    init() {
        registry = PrometheusCollectorRegistry()
        factory = PrometheusMetricsFactory(registry: registry)
        queueDepth = CoreMetrics.Gauge(label: "webimage_server_queue_depth", factory: factory)
        processingTime = CoreMetrics.Timer(label: "webimage_server_processing_seconds", factory: factory)
        sourceFetchTime = CoreMetrics.Timer(label: "webimage_server_source_fetch_seconds", factory: factory)
        queueDepth.record(0)
    }

    /// One answered image request: its status and output format (`none` for errors and 304s without one).
    func countRequest(status: Int, format: String) {
        CoreMetrics.Counter(
            label: "webimage_server_requests_total",
            dimensions: [("status", String(status)), ("format", format)], factory: factory
        ).increment()
    }

    /// A result cache lookup: `memory`, `disk`, `redis` or `miss`.
    func countCacheLookup(tier: String) {
        CoreMetrics.Counter(
            label: "webimage_server_result_cache_lookups_total", dimensions: [("tier", tier)], factory: factory
        ).increment()
    }

    /// How a source was found: `decoded` (the decoded-source cache), `kept_bytes` (fetched before,
    /// decoded again) or `fetched` (from its origin).
    func countSourceLookup(_ result: String) {
        CoreMetrics.Counter(
            label: "webimage_server_source_lookups_total", dimensions: [("result", result)], factory: factory
        ).increment()
    }

    /// A client connection closed by the server for being too slow: `read_request`, `write_response`
    /// or `linger` (the client did not close after the server's error answer). Idle keep-alive
    /// connections are closed by Hummingbird and not counted here.
    func countClientTimeout(_ reason: String) {
        CoreMetrics.Counter(
            label: "webimage_server_client_timeouts_total", dimensions: [("reason", reason)], factory: factory
        ).increment()
    }

    /// Bytes held by the result cache's memory level and by the two source caches, read when `/metrics`
    /// is served.
    func recordHeldBytes(resultCache: Int, sources: Int) {
        CoreMetrics.Gauge(label: "webimage_server_cache_bytes", dimensions: [("cache", "results")], factory: factory)
            .record(resultCache)
        CoreMetrics.Gauge(label: "webimage_server_cache_bytes", dimensions: [("cache", "sources")], factory: factory)
            .record(sources)
    }

    /// Whether the Redis node `node` (`host:port`) answered the last check: 1 up, 0 down.
    func recordRedisNode(_ node: String, isUp: Bool) {
        CoreMetrics.Gauge(label: "webimage_server_redis_node_up", dimensions: [("node", node)], factory: factory)
            .record(isUp ? 1 : 0)
    }

    /// What the Redis tier did between two snapshots of its statistics, as counters by event.
    func countRedis(_ now: RedisCacheStatistics, since before: RedisCacheStatistics) {
        let events: [(String, KeyPath<RedisCacheStatistics, Int>)] = [
            ("hit", \.hits), ("miss", \.misses), ("store", \.stores), ("dropped_write", \.droppedWrites),
            ("oversized_value", \.oversizedValues), ("corrupt_value", \.corruptValues),
            ("connect_failure", \.connectFailures), ("timeout", \.timeouts), ("command_failure", \.commandFailures),
            ("skipped_while_down", \.skippedWhileDown), ("pool_wait_timeout", \.poolWaitTimeouts),
        ]
        for (event, counter) in events {
            let added = now[keyPath: counter] - before[keyPath: counter]
            guard added > 0 else { continue }
            CoreMetrics.Counter(
                label: "webimage_server_redis_events_total", dimensions: [("event", event)], factory: factory
            )
            .increment(by: added)
        }
    }

    func recordQueueDepth(_ depth: Int) { queueDepth.record(depth) }
    func recordProcessing(_ duration: Duration) { processingTime.recordNanoseconds(duration.nanoseconds) }
    func recordSourceFetch(_ duration: Duration) { sourceFetchTime.recordNanoseconds(duration.nanoseconds) }

    /// The Prometheus text exposition of every metric.
    func exposition() -> String { registry.emitToString() }
}

extension Duration {
    /// Whole nanoseconds, saturating (a duration is never near Int64's range here).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
