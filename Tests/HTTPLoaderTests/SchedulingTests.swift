import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

/// The queue: concurrency limit (changeable while running), FIFO/LIFO, priorities, the queue cap and
/// the per-host limit, observed on the server.
@Suite(.timeLimit(.minutes(1)))
struct SchedulingTests {
    let server: LoopbackHTTPServer
    let gate = Gate()
    let arrivals = CompletionCounter()

    init() throws {
        server = try FaultServer.make()
        server.route(prefix: "/gated/") { [gate, arrivals] _, connection in
            arrivals.record(0)
            gate.pass()
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
        server.route(prefix: "/order/") { _, connection in
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
    }

    /// Holds the only slot with a gated request, queues `paths` with their options, then lets them run
    /// and returns the order the server saw them in.
    private func serverOrder(
        _ loader: HTTPLoader, _ requests: [(path: String, options: ImageOptions)]
    ) async -> [String] {
        let done = CompletionCounter()
        _ = loader.download(server.url("/gated/blocker")) { _ in done.record(-1) }
        await arrivals.wait(forTotal: 1)
        for (index, request) in requests.enumerated() {
            _ = loader.download(server.url(request.path), options: request.options) { _ in done.record(index) }
        }
        gate.open()
        await done.wait(forTotal: requests.count + 1)
        return server.requestLog.map(\.path).filter { $0.hasPrefix("/order/") }
    }

    @Test func fifoRunsWaitingRequestsOldestFirst() async {
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let order = await serverOrder(loader, [("/order/a", []), ("/order/b", []), ("/order/c", [])])
        #expect(order == ["/order/a", "/order/b", "/order/c"])
    }

    @Test func lifoRunsWaitingRequestsNewestFirst() async {
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 1; $0.executionOrder = .lifo
        }
        let order = await serverOrder(loader, [("/order/a", []), ("/order/b", []), ("/order/c", [])])
        #expect(order == ["/order/c", "/order/b", "/order/a"])
    }

    @Test func highPriorityJumpsTheQueueAndLowPriorityWaits() async {
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let order = await serverOrder(
            loader,
            [
                ("/order/low", [.lowPriority]), ("/order/normal", []), ("/order/high", [.highPriority]),
            ])
        #expect(order == ["/order/high", "/order/normal", "/order/low"])
    }

    @Test func aCoalescedHighPriorityCallerRaisesTheWaitingTransfer() async {
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let order = await serverOrder(
            loader,
            [
                ("/order/first", []), ("/order/second", []), ("/order/second", [.highPriority]),
            ])
        #expect(order == ["/order/second", "/order/first"])
    }

    @Test func raisingMaxConcurrentDownloadsStartsWaitingRequestsAtOnce() async {
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let done = CompletionCounter()
        _ = loader.download(server.url("/gated/1")) { _ in done.record(1) }
        _ = loader.download(server.url("/gated/2")) { _ in done.record(2) }
        await arrivals.wait(forTotal: 1)
        #expect(loader.maxConcurrentDownloads == 1)
        loader.maxConcurrentDownloads = 2
        // The second request reaches the server while the first still holds its slot.
        await arrivals.wait(forTotal: 2)
        #expect(done.total == 0)
        gate.open(2)
        await done.wait(forTotal: 2)
    }

    @Test func requestsBeyondTheQueueCapAreRefused() async throws {
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 1; $0.maxQueuedRequests = 2
        }
        let done = CompletionCounter()
        _ = loader.download(server.url("/gated/running")) { _ in done.record(0) }
        await arrivals.wait(forTotal: 1)
        _ = try loader.download(server.url("/order/1")) { _ in done.record(1) }.get()
        _ = try loader.download(server.url("/order/2")) { _ in done.record(2) }.get()
        let refused = loader.download(server.url("/order/3")) { _ in done.record(3) }
        guard case .failure(.requestRefused) = refused else {
            Issue.record("expected a refusal, got \(refused)"); return
        }
        gate.open()
        await done.wait(forTotal: 3)
        #expect(done.count(3) == 0)
    }

    @Test func thePerHostLimitHoldsTheSecondTransferUntilTheFirstEnds() async {
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 6; $0.maxConnectionsPerHost = 1
        }
        let events = loader.events()
        let done = CompletionCounter()
        _ = loader.download(server.url("/gated/one")) { _ in done.record(1) }
        await arrivals.wait(forTotal: 1)
        _ = loader.download(server.url("/order/two")) { _ in done.record(2) }
        gate.open()
        await done.wait(forTotal: 2)
        var log: [String] = []
        for await event in events {
            switch event {
            case .started(_, let url): log.append("start \(url.path)")
            case .finished(_, let url, _, _): log.append("end \(url.path)")
            case .responseReceived: continue
            }
            if log.count == 4 { break }
        }
        #expect(log == ["start /gated/one", "end /gated/one", "start /order/two", "end /order/two"])
    }

    @Test func cancellingAWaitingRequestRemovesItWithoutARequest() async throws {
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let events = loader.events()
        let done = CompletionCounter()
        _ = loader.download(server.url("/gated/running")) { _ in done.record(0) }
        await arrivals.wait(forTotal: 1)
        let waiting = try loader.download(server.url("/order/never")) { _ in done.record(1) }.get()
        waiting.cancel()
        gate.open()
        await done.wait(forTotal: 1)
        await waitUntilIdle(loader, events: events)
        #expect(waiting.isCancelled)
        #expect(server.requestCount(for: "/order/never") == 0)
        #expect(done.count(1) == 0)
    }
}
