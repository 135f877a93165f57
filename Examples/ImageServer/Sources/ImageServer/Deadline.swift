import Dispatch
import Synchronization
import WebImage

/// Runs `body` in a task of its own and answers ``ServerFailure/deadlineExceeded`` once `timeout` has
/// passed, without waiting for `body`: the task is cancelled then, which ends downloads and decodes at
/// once (the manager and the coders check it) and a transform at its next step (``onWorkerThread(_:)``
/// hands the work a cancellation check). Until the work has really stopped it keeps its processing slot,
/// so the gate goes on counting the CPU it uses.
func withDeadline<T: Sendable>(
    _ timeout: Duration,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = FirstOutcome<T>()
    let work = Task {
        do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
    }
    let timer = Task {
        try await Task.sleep(for: timeout)
        race.finish(.failure(ServerFailure.deadlineExceeded))
        work.cancel()
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { race.attach($0) }
    } onCancel: {
        work.cancel()
        race.finish(.failure(CancellationError()))
    }
}

/// The first of several outcomes (the work's, the deadline's, the caller's cancellation), handed to one
/// waiting continuation whichever arrives first; later ones are dropped.
final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
    }
    /// Guards the waiting continuation and the first outcome.
    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = state.withLock { state in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let ready { continuation.resume(with: ready) }
    }

    func finish(_ outcome: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            guard let continuation = state.continuation else { return nil }
            state.continuation = nil
            return continuation
        }
        waiting?.resume(with: outcome)
    }
}

/// Set once: a deadline passed, or a task was cancelled.
final class DeadlineFlag: Sendable {
    /// Guards whether the flag is set.
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Runs CPU-bound `work` on a Dispatch worker thread, so transforms and encodes never hold the threads
/// of Swift's cooperative pool, which answer every other request (503s, `/health`) meanwhile. `work` is
/// given a check that turns true once the calling task is cancelled, to stop between its steps.
func onWorkerThread<T: Sendable>(
    _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws(ImageError) -> T
)
    async throws(ImageError) -> T
{
    let cancelled = DeadlineFlag()
    let result: Result<T, ImageError> = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(ImageError) -> T in try work { cancelled.isSet } })
            }
        }
    } onCancel: {
        cancelled.set()
    }
    return try result.get()
}
