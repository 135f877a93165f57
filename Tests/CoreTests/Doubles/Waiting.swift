import WebImageCore

/// Holds the tasks that ``wait()`` until a test calls ``open()``; once open, never waits again.
/// Lets a test order work that would otherwise race it (an un-awaited store against the answer).
final class AsyncGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// Guards whether the gate is open and the tasks waiting for it.
    private let state = Locked(State())

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Lets every waiting and future ``wait()`` through.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            let waiting = state.waiting
            state.waiting = []
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Whether `condition` holds within `timeout`, asked every 2 ms: for an effect that completes on another
/// task after what the test awaited. The bound only stops a broken build from hanging; a loaded machine
/// never gets near it.
func eventually(within timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(2))
    }
    return true
}
