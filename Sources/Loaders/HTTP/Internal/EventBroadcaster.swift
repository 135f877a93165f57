import Synchronization
import WebImageCore

/// Fans download events out to every open ``HTTPLoader/events()`` stream.
final class EventBroadcaster: Sendable {
    private struct State {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<HTTPDownloadEvent>.Continuation] = [:]
    }

    /// Guards the open streams.
    private let state = Locked(State())
    /// Open streams, read without the lock so an unobserved loader builds no events at all.
    private let observerCount = Atomic<Int>(0)

    var isObserved: Bool { observerCount.load(ordering: .relaxed) > 0 }

    func stream() -> AsyncStream<HTTPDownloadEvent> {
        let (stream, continuation) = AsyncStream<HTTPDownloadEvent>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            let id = state.next
            state.next += 1
            state.continuations[id] = continuation
            return id
        }
        observerCount.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            if self.state.withLock({ $0.continuations.removeValue(forKey: id) }) != nil {
                self.observerCount.subtract(1, ordering: .relaxed)
            }
        }
        return stream
    }

    func emit(_ event: @autoclosure () -> HTTPDownloadEvent) {
        guard isObserved else { return }
        let event = event()
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every stream (the loader shut down).
    func finishAll() {
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        observerCount.store(0, ordering: .relaxed)
        for continuation in continuations { continuation.finish() }
    }
}
