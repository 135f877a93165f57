import Foundation

/// What ``eventually(_:timeout:_:)`` throws when its condition did not hold in time.
public struct TimedOut: Error, CustomStringConvertible {
    /// The condition waited for, as the test named it.
    public let what: String

    public var description: String { "timed out waiting until \(what)" }
}

/// Polls `condition` every 20 ms on the calling thread until it holds; throws ``TimedOut`` after `timeout`
/// (generous: a bound for a broken run on a loaded 2-core machine, not a guess at how long anything takes).
public func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw TimedOut(what: what)
}

/// ``eventually(_:timeout:_:)`` for an async condition, sleeping `interval` (20 ms by default) between
/// polls without holding a thread.
public func eventuallyAsync(
    _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    throw TimedOut(what: what)
}

/// Whether `condition` holds within `timeout`, asked every 2 ms: for an effect that completes on another
/// task after what the test awaited, checked with `#expect(try await eventually { ... })`. The bound only
/// stops a broken build from hanging; a loaded machine never gets near it.
public func eventually(within timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(2))
    }
    return true
}
