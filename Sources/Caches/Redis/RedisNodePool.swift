import Dispatch
import Foundation
import Synchronization
import WebImageCore

/// The connections to one node: at most ``RedisCacheConfiguration/connectionsPerNode`` open and in use,
/// opened on demand, and a reconnect backoff that answers calls as misses at once while the node is down.
///
/// Every call is bounded: the wait for a connection by `poolWaitTimeout`, opening one by `connectTimeout`,
/// the exchange by `writeTimeout` + `readTimeout`. Calls block their thread (like the disk cache's file
/// I/O); ``RedisCache`` callers run them off threads that must not wait.
final class RedisNodePool: Sendable {
    let endpoint: RedisEndpoint
    private let configuration: RedisCacheConfiguration
    private let recorder: RedisStatisticsRecorder
    /// One permit per connection that may be in use; bounds the commands in flight to this node.
    private let permits: DispatchSemaphore

    private struct State {
        /// Open connections not in use. Each is handed to one caller at a time.
        var idle: [RedisConnection] = []
        /// While the clock is before this, the node counts as down and calls are misses.
        var downUntil: ContinuousClock.Instant?
        /// Connect failures in a row; sets the backoff (initial × 2^failures, capped).
        var consecutiveFailures = 0
    }
    /// Guards the idle connections and the backoff; never held during I/O.
    private let state = Locked(State())
    /// Whether `State.downUntil` is set, so a call to a node that is up (nearly all of them) checks the
    /// backoff without taking the lock. Written under the lock together with `downUntil`; a stale read
    /// only costs one lock-and-clock check, or one call tried at the instant a backoff starts.
    private let mayBeDown = Atomic<Bool>(false)

    /// Where this node's connections place large reply strings (shared by the cache's nodes).
    private let replyMemory: RedisReplyMemory

    init(
        endpoint: RedisEndpoint, configuration: RedisCacheConfiguration, recorder: RedisStatisticsRecorder,
        replyMemory: RedisReplyMemory
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.recorder = recorder
        self.replyMemory = replyMemory
        permits = DispatchSemaphore(value: max(1, configuration.connectionsPerNode))
    }

    /// Whether the node is waiting out a backoff.
    var isDown: Bool {
        guard mayBeDown.load(ordering: .relaxed) else { return false }
        return state.withLock { state in state.downUntil.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Runs `commands` as one pipeline on a connection of this node; nil (and a counter) on any failure.
    func run(_ commands: [[Data]]) -> [RedisReply]? { run(RedisPipeline(commands)) }

    /// Runs `pipeline` on a connection of this node; nil (and a counter) on any failure.
    func run(_ pipeline: RedisPipeline) -> [RedisReply]? {
        if isDown {
            recorder.count(\.skippedWhileDown)
            return nil
        }
        guard permits.wait(timeout: .now() + configuration.poolWaitTimeout.dispatchInterval) == .success else {
            recorder.count(\.poolWaitTimeouts)
            return nil
        }
        defer { permits.signal() }
        guard let connection = takeConnection() else { return nil }
        do throws(RedisFailure) {
            let replies = try connection.run(pipeline)
            state.withLock { $0.idle.append(connection) }
            return replies
        } catch {
            // The connection is dropped here (its reply stream is in an unknown state).
            if error == .timeout {
                recorder.count(\.timeouts, log: "redis \(endpoint): command timed out")
            } else {
                recorder.count(\.commandFailures, log: "redis \(endpoint): \(error)")
            }
            return nil
        }
    }

    /// Closes every idle connection; connections in use close when their callers are done with them.
    func closeIdleConnections() {
        state.withLock { $0.idle.removeAll() }
    }

    /// An idle connection, or a new one; nil when the node cannot be reached (the backoff then grows).
    private func takeConnection() -> RedisConnection? {
        if let connection = state.withLock({ $0.idle.popLast() }) { return connection }
        if isDown {
            recorder.count(\.skippedWhileDown)
            return nil
        }
        do throws(RedisFailure) {
            let connection = try RedisConnection(
                endpoint: endpoint, connectTimeout: configuration.connectTimeout.roundedUpMilliseconds,
                readTimeout: configuration.readTimeout.roundedUpMilliseconds,
                writeTimeout: configuration.writeTimeout.roundedUpMilliseconds,
                maxBulkLength: configuration.maxValueSize,
                replyMemory: replyMemory, replySpinMicroseconds: configuration.replySpinMicroseconds,
                checksumSkip: RedisValueEnvelope.headerSize)
            state.withLock { state in
                state.consecutiveFailures = 0
                state.downUntil = nil
                mayBeDown.store(false, ordering: .relaxed)
            }
            recorder.count(\.connectionsOpened)
            return connection
        } catch {
            let backoff = state.withLock { state -> Duration in
                let exponent = min(state.consecutiveFailures, Self.maxBackoffDoublings)
                let delay = min(
                    configuration.reconnectBackoffInitial * (1 << exponent), configuration.reconnectBackoffMax)
                state.consecutiveFailures += 1
                state.downUntil = ContinuousClock.now + delay
                mayBeDown.store(true, ordering: .relaxed)
                return delay
            }
            recorder.count(
                \.connectFailures,
                log: "redis \(endpoint): \(error); next attempt in \(backoff.roundedUpMilliseconds) ms")
            return nil
        }
    }

    /// Doublings of the backoff before the cap stops mattering; keeps the shift from overflowing.
    private static let maxBackoffDoublings = 20
}
