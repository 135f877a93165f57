import Dispatch
import WebImageCore

/// Holds threads (a loopback server's route handlers, on their connection threads) until the test opens
/// it, so requests are provably in flight while the test does more. Opening is explicit; the bound only
/// keeps a failing test from hanging the server.
public final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// The longest ``pass()`` blocks: a bound for a failed test, not a timing.
    private let bound: DispatchTimeInterval

    /// A closed gate whose ``pass()`` gives up after `bound` (30 s by default).
    public init(bound: DispatchTimeInterval = .seconds(30)) { self.bound = bound }

    /// Blocks the calling thread until ``open(_:)`` lets it through (or the bound passes).
    public func pass() { _ = semaphore.wait(timeout: .now() + bound) }

    /// Lets `count` waiting (or future) threads through.
    public func open(_ count: Int = 1) { for _ in 0..<count { semaphore.signal() } }
}

/// Holds the tasks that ``wait()`` until a test calls ``open()``; once open, never waits again. Lets a test
/// order work that would otherwise race it (an un-awaited store against the answer, an origin's answer
/// against the request the test makes meanwhile). It blocks no thread.
public final class AsyncGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Calls of ``wait()`` so far, open or not.
        var arrivals = 0
        /// Tests waiting for a number of arrivals (``arrived(_:)``).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Guards whether the gate is open, the tasks waiting for it and the tests watching them arrive.
    private let state = Locked(State())

    /// A closed gate.
    public init() {}

    /// Returns once the gate is open (at once when it already is).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (isOpen, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.arrivals += 1
                let arrivals = state.arrivals
                let reached = state.watchers.filter { $0.count <= arrivals }.map(\.continuation)
                state.watchers.removeAll { $0.count <= arrivals }
                if !state.isOpen { state.waiting.append(continuation) }
                return (state.isOpen, reached)
            }
            for watcher in reached { watcher.resume() }
            if isOpen { continuation.resume() }
        }
    }

    /// Returns once `count` tasks have reached ``wait()``: an event, not a guess at how long they take.
    public func arrived(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.arrivals >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Lets every waiting and future ``wait()`` through.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            let waiting = state.waiting
            state.waiting = []
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
