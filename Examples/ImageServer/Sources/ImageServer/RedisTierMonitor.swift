import Dispatch
import Logging
import ServiceLifecycle
import Synchronization
import WebImageRedisCache

/// Watches the result cache's Redis tier for operators: asks every node for `PING` every few seconds,
/// logs each node's change of state once (a warning when it goes down, a notice when it is back, never
/// once per request), and brings the tier's counters (``RedisCacheStatistics``) and each node's state
/// into the server's metrics.
final class RedisTierMonitor: Service, Sendable {
    let redis: RedisCache
    let metrics: ServerMetrics
    let logger: Logger
    let interval: Duration
    /// Guards what was last seen: each node's state and the counters already exported.
    private let seen: Mutex<(nodesUp: [Bool], exported: RedisCacheStatistics)>

    init(redis: RedisCache, metrics: ServerMetrics, logger: Logger, interval: Duration = .seconds(2)) {
        self.redis = redis
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
        // Nodes count as up until a check says otherwise, so a healthy start logs nothing.
        seen = Mutex((Array(repeating: true, count: redis.configuration.nodes.count), RedisCacheStatistics()))
        for node in redis.configuration.nodes { metrics.recordRedisNode(node.description, isUp: true) }
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                await check()
                try await Task.sleep(for: interval)
            }
        }
    }

    /// One round: the nodes' state (PING blocks for up to the tier's timeouts, so it runs on a Dispatch
    /// thread) and the counters since the last round.
    func check() async {
        let redis = self.redis
        let reachable = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: redis.reachableNodes()) }
        }
        let nodes = redis.configuration.nodes
        let changes: [(index: Int, isUp: Bool)] = seen.withLock { seen in
            var changes: [(Int, Bool)] = []
            for (index, isUp) in reachable.enumerated() where seen.nodesUp[index] != isUp {
                seen.nodesUp[index] = isUp
                changes.append((index, isUp))
            }
            return changes
        }
        for change in changes {
            let node = nodes[change.index].description
            metrics.recordRedisNode(node, isUp: change.isUp)
            if change.isUp {
                logger.notice("redis node back up", metadata: ["node": "\(node)"])
            } else {
                logger.warning(
                    "redis node down: results are made and served without it until it is back",
                    metadata: ["node": "\(node)"])
            }
        }
        exportCounters()
    }

    /// Adds what the tier's counters gained since the last export to the server's counters.
    func exportCounters() {
        let now = redis.statistics
        let before = seen.withLock { seen in
            defer { seen.exported = now }
            return seen.exported
        }
        metrics.countRedis(now, since: before)
    }
}
