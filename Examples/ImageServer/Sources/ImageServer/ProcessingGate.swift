import Synchronization

/// Bounds the requests processed at once and the requests waiting for a slot: past both, ``run(key:_:)``
/// refuses at once (the server answers 429 with `Retry-After`) instead of queueing without end.
///
/// Requests may name a key (the download gate uses the source's origin) with a share of the slots and of
/// the queue each key may hold: a slow origin then fills its own share, and requests for other origins
/// pass it, instead of every slot waiting on the one origin that stalls.
final class ProcessingGate: Sendable {
    /// Thrown by ``enter()`` when every slot is busy and the queue is full.
    struct Overloaded: Error {}

    private struct Waiter {
        let id: UInt64
        let key: String?
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var runningByKey: [String: Int] = [:]
        var waiters: [Waiter] = []
        var queuedByKey: [String: Int] = [:]
        var nextID: UInt64 = 0

        func mayRun(_ key: String?, slots: Int, perKeySlots: Int) -> Bool {
            guard running < slots else { return false }
            guard let key else { return true }
            return runningByKey[key, default: 0] < perKeySlots
        }

        mutating func start(_ key: String?) {
            running += 1
            if let key { runningByKey[key, default: 0] += 1 }
        }

        mutating func finish(_ key: String?) {
            running -= 1
            guard let key else { return }
            let left = runningByKey[key, default: 1] - 1
            runningByKey[key] = left > 0 ? left : nil
        }

        mutating func dequeue(at index: Int) -> Waiter {
            let waiter = waiters.remove(at: index)
            if let key = waiter.key {
                let left = queuedByKey[key, default: 1] - 1
                queuedByKey[key] = left > 0 ? left : nil
            }
            return waiter
        }
    }

    let slots: Int
    let queueLimit: Int
    /// Slots one key may hold at once, and requests of one key that may wait.
    let perKeySlots: Int
    let perKeyQueueLimit: Int
    /// Called with the queue depth whenever it changes (the queue-depth gauge).
    private let onQueueDepth: @Sendable (Int) -> Void
    /// Guards the running count and the waiters (FIFO).
    private let state = Mutex(State())

    /// `slots` requests at once and `queueLimit` waiting; of those, at most `perKeySlots` and
    /// `perKeyQueueLimit` of one key (no per-key bound by default).
    init(
        slots: Int, queueLimit: Int, perKeySlots: Int = .max, perKeyQueueLimit: Int = .max,
        onQueueDepth: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
        self.perKeySlots = max(1, perKeySlots)
        self.perKeyQueueLimit = max(0, perKeyQueueLimit)
        self.onQueueDepth = onQueueDepth
    }

    /// Requests holding a slot now.
    var runningCount: Int { state.withLock { $0.running } }
    /// Requests waiting for one now.
    var queuedCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` in a slot, waiting in the queue for one; throws ``Overloaded`` when the queue (or
    /// `key`'s share of it) is full and `CancellationError` when the task is cancelled while waiting.
    func run<T: Sendable>(key: String? = nil, _ body: () async throws -> T) async throws -> T {
        try await enter(key)
        defer { leave(key) }
        return try await body()
    }

    private func enter(_ key: String?) async throws {
        enum Decision { case admitted, queued(UInt64), refused, cancelled }
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (decision, depth): (Decision, Int) = state.withLock { state in
                    if state.mayRun(key, slots: slots, perKeySlots: perKeySlots) {
                        state.start(key)
                        return (.admitted, state.waiters.count)
                    }
                    if Task.isCancelled { return (.cancelled, state.waiters.count) }
                    let keyQueued = key.map { state.queuedByKey[$0, default: 0] } ?? 0
                    if state.waiters.count < queueLimit, keyQueued < perKeyQueueLimit {
                        state.waiters.append(Waiter(id: id, key: key, continuation: continuation))
                        if let key { state.queuedByKey[key, default: 0] += 1 }
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
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    return (nil, state.waiters.count)
                }
                return (state.dequeue(at: index), state.waiters.count)
            }
            if let removed {
                onQueueDepth(depth)
                removed.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Frees the slot and hands free slots to the first waiters whose key may run (FIFO otherwise).
    private func leave(_ key: String?) {
        let (admitted, depth): ([Waiter], Int) = state.withLock { state in
            state.finish(key)
            var admitted: [Waiter] = []
            while state.running < slots,
                let index = state.waiters.firstIndex(where: {
                    state.mayRun($0.key, slots: slots, perKeySlots: perKeySlots)
                })
            {
                let waiter = state.dequeue(at: index)
                state.start(waiter.key)
                admitted.append(waiter)
            }
            return (admitted, state.waiters.count)
        }
        guard !admitted.isEmpty else { return }
        onQueueDepth(depth)
        for waiter in admitted { waiter.continuation.resume() }
    }
}
