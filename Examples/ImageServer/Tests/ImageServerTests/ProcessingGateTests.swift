import Synchronization
import Testing
import WebImageTestSupport

@testable import ImageServer

/// The gate's bounds: slots, the queue, and each key's share of both.
@Suite(.timeLimit(.minutes(1)))
struct ProcessingGateTests {
    @Test func aKeyAtItsShareWaitsWhileOtherKeysRun() async throws {
        let gate = ProcessingGate(slots: 3, queueLimit: 8, perKeySlots: 1, perKeyQueueLimit: 4)
        let release = Release()
        let slow = Task { try await gate.run(key: "slow") { await release.wait() } }
        try await waitUntil { gate.runningCount == 1 }
        let slowAgain = Task { try await gate.run(key: "slow") { await release.wait() } }
        try await waitUntil { gate.queuedCount == 1 }
        // Two slots are free and "slow" has its one: another key runs at once, "slow" keeps waiting.
        #expect(try await gate.run(key: "other") { 7 } == 7)
        #expect(gate.queuedCount == 1)
        release.open()
        try await slow.value
        try await slowAgain.value
        #expect(gate.runningCount == 0 && gate.queuedCount == 0)
    }

    @Test func aKeyThatFillsItsShareOfTheQueueIsRefusedAlone() async throws {
        let gate = ProcessingGate(slots: 1, queueLimit: 8, perKeySlots: 1, perKeyQueueLimit: 2)
        let release = Release()
        let running = Task { try await gate.run(key: "slow") { await release.wait() } }
        try await waitUntil { gate.runningCount == 1 }
        let queued = (0..<2).map { _ in Task { try await gate.run(key: "slow") { await release.wait() } } }
        try await waitUntil { gate.queuedCount == 2 }
        await #expect(throws: ProcessingGate.Overloaded.self) { try await gate.run(key: "slow") {} }
        // Another key still finds room in the queue.
        let other = Task { try await gate.run(key: "other") { 1 } }
        try await waitUntil { gate.queuedCount == 3 }
        release.open()
        try await running.value
        for task in queued { try await task.value }
        #expect(try await other.value == 1)
    }

    @Test func freedSlotsGoToTheFirstWaiterWhoseKeyMayRun() async throws {
        let gate = ProcessingGate(slots: 2, queueLimit: 8, perKeySlots: 1, perKeyQueueLimit: 8)
        let (holdA, holdB) = (Release(), Release())
        let order = Order()
        let a1 = Task { try await gate.run(key: "a") { await holdA.wait() } }
        let b1 = Task { try await gate.run(key: "b") { await holdB.wait() } }
        try await waitUntil { gate.runningCount == 2 }
        let a2 = Task { try await gate.run(key: "a") { order.append("a") } }
        try await waitUntil { gate.queuedCount == 1 }
        let c1 = Task { try await gate.run(key: "c") { order.append("c") } }
        try await waitUntil { gate.queuedCount == 2 }
        // "b" leaves: "a" is still at its share, so the slot goes to "c", behind it in the queue.
        holdB.open()
        try await b1.value
        try await c1.value
        #expect(order.keys == ["c"])
        holdA.open()
        try await a1.value
        try await a2.value
        #expect(order.keys == ["c", "a"])
    }

    @Test func requestsWithoutAKeyShareOnlyTheSlots() async throws {
        let gate = ProcessingGate(slots: 2, queueLimit: 0)
        let release = Release()
        let held = (0..<2).map { _ in Task { try await gate.run { await release.wait() } } }
        try await waitUntil { gate.runningCount == 2 }
        await #expect(throws: ProcessingGate.Overloaded.self) { try await gate.run {} }
        release.open()
        for task in held { try await task.value }
    }

    /// Polls every 5 ms until `condition` holds; fails after a bound meant for a broken run.
    private func waitUntil(_ condition: () -> Bool) async throws {
        try await eventuallyAsync("the gate's counts", timeout: .seconds(30), every: .milliseconds(5), condition)
    }
}

/// Holds the bodies run in the gate until the test opens it.
private final class Release: Sendable {
    private let gate = AsyncGate()
    func wait() async { await gate.wait() }
    func open() { gate.open() }
}

/// The keys whose bodies ran, in the order they ran.
private final class Order: Sendable {
    /// Guards the keys, appended from the gate's tasks.
    private let state = Mutex<[String]>([])
    func append(_ key: String) { state.withLock { $0.append(key) } }
    var keys: [String] { state.withLock { $0 } }
}
