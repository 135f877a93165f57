import Dispatch

/// Holds server route handlers (on their connection threads) until the test opens it, so requests
/// are provably in flight while the test queues more. Opening is explicit; the timeout only keeps a
/// failing test from hanging the server.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Blocks the calling server thread until ``open(_:)``.
    func pass() { _ = semaphore.wait(timeout: .now() + 30) }

    /// Lets `count` waiting (or future) handlers through.
    func open(_ count: Int = 1) { for _ in 0..<count { semaphore.signal() } }
}
