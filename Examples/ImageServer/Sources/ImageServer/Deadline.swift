import WebImage
import Dispatch
import Synchronization

/// Runs `body` in a task of its own and cancels it after `timeout`, throwing
/// ``ServerFailure/deadlineExceeded`` then. Cancellation reaches downloads and decodes at once (the
/// manager and the coders check it); a transform in progress ends first, so the answer waits for it.
func withDeadline<T: Sendable>(_ timeout: Duration,
                               _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let expired = DeadlineFlag()
    let work = Task { try await body() }
    let timer = Task {
        try await Task.sleep(for: timeout)
        expired.set()
        work.cancel()
    }
    defer { timer.cancel() }
    let result = await withTaskCancellationHandler { await work.result } onCancel: { work.cancel() }
    if expired.isSet { throw ServerFailure.deadlineExceeded }
    return try result.get()
}

/// Set once when a deadline passes.
final class DeadlineFlag: Sendable {
    /// Guards whether the deadline passed.
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Runs CPU-bound `work` on a Dispatch worker thread, so transforms and encodes never hold the threads
/// of Swift's cooperative pool, which answer every other request (503s, `/health`) meanwhile.
func onWorkerThread<T: Sendable>(_ work: @escaping @Sendable () throws(ImageError) -> T) async throws(ImageError) -> T {
    let result: Result<T, ImageError> = await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
            continuation.resume(returning: Result { () throws(ImageError) -> T in try work() })
        }
    }
    return try result.get()
}
