import Synchronization

/// Bounds the requests processed at once and the requests waiting for a slot: past both, ``enter()``
/// refuses at once (the server answers 503 with `Retry-After`) instead of queueing without end.
final class ProcessingGate: Sendable {
    /// Thrown by ``enter()`` when every slot is busy and the queue is full.
    struct Overloaded: Error {}

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    let slots: Int
    let queueLimit: Int
    /// Called with the queue depth whenever it changes (the queue-depth gauge).
    private let onQueueDepth: @Sendable (Int) -> Void
    /// Guards the running count and the waiters (FIFO).
    private let state = Mutex(State())

    init(slots: Int, queueLimit: Int, onQueueDepth: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
        self.onQueueDepth = onQueueDepth
    }

    /// Requests holding a slot now.
    var runningCount: Int { state.withLock { $0.running } }
    /// Requests waiting for one now.
    var queuedCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` in a slot, waiting in the queue for one; throws ``Overloaded`` when the queue is full
    /// and `CancellationError` when the task is cancelled while waiting.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async throws {
        enum Decision { case admitted, queued(UInt64), refused, cancelled }
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (decision, depth): (Decision, Int) = state.withLock { state in
                    if state.running < slots {
                        state.running += 1
                        return (.admitted, state.waiters.count)
                    }
                    if Task.isCancelled { return (.cancelled, state.waiters.count) }
                    if state.waiters.count < queueLimit {
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return (.queued(id), state.waiters.count)
                    }
                    return (.refused, state.waiters.count)
                }
                switch decision {
                case .admitted: continuation.resume()
                case .queued: onQueueDepth(depth)
                case .refused: continuation.resume(throwing: Overloaded())
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let (removed, depth): (Waiter?, Int) = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return (nil, state.waiters.count) }
                return (state.waiters.remove(at: index), state.waiters.count)
            }
            if let removed {
                onQueueDepth(depth)
                removed.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Hands the slot to the first waiter, or frees it.
    private func leave() {
        let (next, depth): (Waiter?, Int) = state.withLock { state in
            if state.waiters.isEmpty {
                state.running -= 1
                return (nil, 0)
            }
            return (state.waiters.removeFirst(), state.waiters.count)
        }
        if let next {
            onQueueDepth(depth)
            next.continuation.resume()
        }
    }
}
