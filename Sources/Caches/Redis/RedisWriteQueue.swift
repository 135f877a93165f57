import Dispatch
import Foundation
import WebImageCore

/// Fire-and-forget writes with a bound: each node has a lane (a serial queue) that sends what is waiting
/// as one pipeline, and at most `limit` commands wait across all lanes; more are dropped and counted.
final class RedisWriteQueue: Sendable {
    /// Most commands sent in one pipeline: large enough to amortise the round trip, small enough that one
    /// batch of 20 KB images stays within a few megabytes and well inside the write timeout.
    static let maxBatch = 64

    private let lanes: [Lane]
    private let limit: Int
    private let recorder: RedisStatisticsRecorder
    /// Commands queued and not yet answered, across lanes.
    private let pending = Locked(0)
    /// Entered per queued command and left when it was sent (or failed): what `waitUntilEmpty` waits on.
    private let group = DispatchGroup()

    init(pools: [RedisNodePool], limit: Int, recorder: RedisStatisticsRecorder) {
        lanes = pools.map { Lane(pool: $0) }
        self.limit = limit
        self.recorder = recorder
    }

    /// Queues `command` for node `node`; false when the queue is full (the write is dropped and counted).
    /// `onReply` runs on the lane with the command's reply (nil when the pipeline failed).
    @discardableResult
    func enqueue(_ command: [Data], node: Int, onReply: @escaping @Sendable (RedisReply?) -> Void) -> Bool {
        let accepted = pending.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard accepted else {
            recorder.count(\.droppedWrites, log: "redis: write queue full (\(limit)); write dropped")
            return false
        }
        group.enter()
        lanes[node].add(Item(command: command, onReply: onReply), queue: self)
        return true
    }

    /// Waits until every queued command was sent, at most `timeout`. True when the queue emptied.
    func waitUntilEmpty(timeout: Duration) -> Bool {
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        return group.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }

    fileprivate func finished(_ count: Int) {
        pending.withLock { $0 -= count }
        for _ in 0..<count { group.leave() }
    }

    fileprivate struct Item: Sendable {
        let command: [Data]
        let onReply: @Sendable (RedisReply?) -> Void
    }

    /// One node's queue: commands wait in `waiting`; one drain at a time runs on `queue`.
    fileprivate final class Lane: Sendable {
        let pool: RedisNodePool
        private let queue: DispatchQueue
        private struct State {
            var waiting: [Item] = []
            var draining = false
        }
        /// Guards the waiting commands and whether a drain is scheduled.
        private let state = Locked(State())

        init(pool: RedisNodePool) {
            self.pool = pool
            queue = DispatchQueue(label: "RedisWriteQueue.\(pool.endpoint)", qos: .utility)
        }

        func add(_ item: Item, queue owner: RedisWriteQueue) {
            let schedule = state.withLock { state in
                state.waiting.append(item)
                defer { state.draining = true }
                return !state.draining
            }
            if schedule { queue.async { self.drain(owner) } }
        }

        private func drain(_ owner: RedisWriteQueue) {
            while true {
                let batch = state.withLock { state -> [Item] in
                    let batch = Array(state.waiting.prefix(RedisWriteQueue.maxBatch))
                    state.waiting.removeFirst(batch.count)
                    if batch.isEmpty { state.draining = false }
                    return batch
                }
                if batch.isEmpty { return }
                let replies = pool.run(batch.map(\.command))
                for (index, item) in batch.enumerated() { item.onReply(replies?[index]) }
                owner.finished(batch.count)
            }
        }
    }
}
