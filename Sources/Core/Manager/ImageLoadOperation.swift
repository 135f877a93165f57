import Foundation
import Synchronization

/// One caller's load through an ``ImageManager``; cancel it to stop caring about the result.
///
/// Cancelling an operation stops its completion from being called and cancels its own cache query
/// and loader request. Other callers of the same URL have operations of their own and carry on.
public final class ImageLoadOperation: ImageOperation {
    /// The URL being loaded.
    public let url: URL

    private struct State {
        var isCancelled = false
        var isFinished = false
        var task: Task<Void, Never>?
    }

    /// Guards cancellation, the exactly-once completion, and the task running the flow.
    private let state = Locked(State())
    private let onEnd: @Sendable (ImageLoadOperation) -> Void

    init(url: URL, onEnd: @escaping @Sendable (ImageLoadOperation) -> Void) {
        self.url = url
        self.onEnd = onEnd
    }

    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Whether the final completion has been delivered (or the load cancelled).
    public var isFinished: Bool { state.withLock { $0.isFinished || $0.isCancelled } }

    public func cancel() {
        let (cancelled, task) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard !state.isCancelled, !state.isFinished else { return (false, nil) }
            state.isCancelled = true
            return (true, state.task)
        }
        guard cancelled else { return }
        task?.cancel()
        onEnd(self)
    }

    func attach(_ task: Task<Void, Never>) {
        let alreadyCancelled = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if alreadyCancelled { task.cancel() }
    }

    /// Claims the right to deliver the final completion; false when cancelled or already delivered.
    func claimFinal() -> Bool {
        let claimed = state.withLock { state in
            guard !state.isCancelled, !state.isFinished else { return false }
            state.isFinished = true
            return true
        }
        if claimed { onEnd(self) }
        return claimed
    }

    /// Whether a non-final answer may still be delivered.
    var canDeliver: Bool { state.withLock { !$0.isCancelled && !$0.isFinished } }
}
