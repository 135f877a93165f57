import Logging
import Testing
import WebImageRedisCache
import WebImageTestSupport

/// What the Redis tier tells an operator: its logger and its metrics, passed and named as every plugin's.
/// Metrics go to the process's one test backend, shared with suites running in parallel: counters are
/// checked for growth.
@Suite("Redis cache: logs and metrics")
struct RedisCacheObservabilityTests {
    @Test func aNodeThatRefusesIsLoggedAndCounted() throws {
        let metrics = TestBackends.metrics
        let dimensions = [("event", "connect_failure")]
        let before = metrics.counterTotal(label: RedisCacheMetrics.events, dimensions: dimensions)
        let missesBefore = metrics.counterTotal(label: RedisCacheMetrics.events, dimensions: [("event", "miss")])
        let log = RecordingLog()
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let redis = try RedisCache(url: "redis://127.0.0.1:1", logger: log.logger(level: .debug))
        #expect(try redis.data(forKey: "absent") == nil)
        #expect(redis.statistics.connectFailures == 1)
        #expect(log.messages.contains { $0.hasPrefix("redis 127.0.0.1:1") && $0.contains("next attempt in") })
        #expect(log.levels == [.debug])
        #expect(metrics.counterTotal(label: RedisCacheMetrics.events, dimensions: dimensions) >= before + 1)
        #expect(
            metrics.counterTotal(label: RedisCacheMetrics.events, dimensions: [("event", "miss")]) >= missesBefore + 1)
    }
}
