import Testing

@testable import WebImageHTTPLoader

/// The queue's order on its own, without a server: priorities first, hosts in turn within a
/// priority, FIFO or LIFO within a host, busy hosts skipped without losing their place.
struct TransferQueueTests {
    /// A queue holding `hosts[i]` for transfer i, all at `priority`.
    private func queue(_ hosts: [String], priority: TransferPriority = .normal) -> TransferQueue {
        var queue = TransferQueue()
        for (index, host) in hosts.enumerated() {
            queue.append(.init(transferID: UInt64(index), ticket: UInt64(index), host: host), priority: priority)
        }
        return queue
    }

    /// Takes everything, with `isBusy` saying which hosts may not start, and returns the transfer ids.
    private func drain(
        _ queue: inout TransferQueue, order: HTTPLoaderConfiguration.ExecutionOrder = .fifo,
        isLive: (UInt64) -> Bool = { _ in true }, isBusy: (String) -> Bool = { _ in false }
    ) -> [UInt64] {
        var taken: [UInt64] = []
        while let entry = queue.take(order: order, isLive: { isLive($0.transferID) }, canStart: { !isBusy($0) }) {
            taken.append(entry.transferID)
        }
        return taken
    }

    @Test func hostsTakeTurnsWhateverHowManyEachHasWaiting() {
        var queue = queue(["a", "a", "a", "a", "b", "c", "b"])
        #expect(drain(&queue) == [0, 4, 5, 1, 6, 2, 3])
    }

    @Test func lifoTakesTheNewestOfEachHostInTurn() {
        var queue = queue(["a", "a", "b", "b"])
        #expect(drain(&queue, order: .lifo) == [1, 3, 0, 2])
    }

    @Test func aBusyHostIsSkippedAndKeepsItsPlace() {
        var queue = queue(["a", "a", "b"])
        #expect(drain(&queue, isBusy: { $0 == "a" }) == [2])
        #expect(drain(&queue) == [0, 1])
    }

    @Test func staleEntriesAreDroppedOnTheWay() {
        var queue = queue(["a", "a", "b", "a"])
        #expect(drain(&queue, isLive: { $0 != 0 && $0 != 1 }) == [3, 2])
    }

    @Test func higherPrioritiesGoFirstAndTheRotationIsPerPriority() {
        var queue = queue(["a", "a"], priority: .low)
        queue.append(.init(transferID: 10, ticket: 10, host: "b"), priority: .high)
        queue.append(.init(transferID: 11, ticket: 11, host: "a"), priority: .normal)
        #expect(drain(&queue) == [10, 11, 0, 1])
    }

    @Test func aRetryPushedNextIsTakenNext() {
        var queue = queue(["a", "b", "a"])
        #expect(queue.take(order: .fifo, isLive: { _ in true }, canStart: { _ in true })?.transferID == 0)
        queue.pushNext(.init(transferID: 9, ticket: 9, host: "a"), priority: .normal, order: .fifo)
        #expect(drain(&queue) == [9, 1, 2])
    }

    @Test func aLongLaneStaysInOrderAcrossCompaction() {
        // Enough entries on one host for the consumed front to be reclaimed midway.
        var queue = queue(Array(repeating: "a", count: 300) + ["b"])
        let taken = drain(&queue)
        #expect(taken.count == 301)
        #expect(taken[1] == 300)
        #expect(taken.filter { $0 != 300 } == Array(0..<300).map(UInt64.init))
    }
}
