import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

/// Identical requests share one transfer; each caller keeps its own completion and cancellation.
@Suite(.timeLimit(.minutes(1)))
struct CoalescingTests {
    let server: LoopbackHTTPServer
    let gate = Gate()
    let arrivals = CompletionCounter()

    init() throws {
        server = try FaultServer.make()
        server.route("/gated.pgm") { [gate, arrivals] _, connection in
            arrivals.record(0)
            gate.pass()
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
    }

    @Test func aHundredCallersOfOneURLMakeOneRequest() async throws {
        let loader = makeLoader()
        let done = CompletionCounter()
        let results = Locked<[Result<LoadedImage, ImageError>]>([])
        for index in 0..<100 {
            _ = loader.download(server.url("/gated.pgm")) { result in
                results.withLock { $0.append(result) }
                done.record(index)
            }
        }
        await arrivals.wait(forTotal: 1)
        gate.open()
        await done.wait(forTotal: 100)
        #expect(server.requestCount(for: "/gated.pgm") == 1)
        let all = results.withLock { $0 }
        #expect(all.count == 100)
        #expect(all.allSatisfy { (try? $0.get().data) == Data(FaultServer.image) })
        for index in 0..<100 { #expect(done.count(index) == 1) }
    }

    @Test func cancellingOneOfTwoCoalescedCallersKeepsTheOtherDownload() async throws {
        let loader = makeLoader()
        let done = CompletionCounter()
        let first = try loader.download(server.url("/gated.pgm")) { _ in done.record(1) }.get()
        let second = try loader.download(server.url("/gated.pgm")) { result in
            #expect((try? result.get().data) == Data(FaultServer.image))
            done.record(2)
        }.get()
        #expect(first.transferID == second.transferID)
        await arrivals.wait(forTotal: 1)
        first.cancel()
        gate.open()
        await done.wait(forTotal: 1)
        let events = loader.events()
        await waitUntilIdle(loader, events: events)
        #expect(first.isCancelled)
        #expect(!second.isCancelled)
        #expect(done.count(1) == 0)
        #expect(done.count(2) == 1)
        #expect(server.requestCount(for: "/gated.pgm") == 1)
    }

    @Test func theTransferStopsWhenItsLastCallerLeaves() async throws {
        let loader = makeLoader()
        let events = loader.events()
        let stall = server.url("/stall")
        let tokens = try (0..<2).map { _ in
            try loader.download(stall) { _ in Issue.record("a cancelled caller was answered") }.get()
        }
        // Wait until the transfer really runs (its response head arrived), then leave.
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() { if case .responseReceived = event { break } }
        for token in tokens { token.cancel() }
        var stopped: ImageError? = nil
        while let event = await iterator.next() {
            if case .finished(_, _, let error, _) = event { stopped = error; break }
        }
        #expect(stopped == .cancelled)
        #expect(loader.liveTransferCount == 0)
        // A new caller of the same request gets a fresh transfer, not the cancelled one.
        let fresh = try loader.download(server.url("/ok.pgm")) { _ in }.get()
        #expect(fresh.transferID != tokens[0].transferID)
    }

    @Test func callersWithDifferentHeadersDoNotShareBytes() async throws {
        let loader = makeLoader()
        let done = CompletionCounter()
        for user in ["alice", "bob"] {
            var context = ImageContext()
            context.requestModifier = RequestModifierBlock { request in
                var request = request
                request.headers["Authorization"] = "Bearer \(user)"
                return request
            }
            _ = loader.download(server.url("/gated.pgm"), context: context) { _ in done.record(0) }
        }
        await arrivals.wait(forTotal: 2)
        gate.open(2)
        await done.wait(forTotal: 2)
        #expect(server.requestCount(for: "/gated.pgm") == 2)
        let sent = Set(server.requestLog.compactMap { $0.headers["authorization"] })
        #expect(sent == ["Bearer alice", "Bearer bob"])
    }

    @Test func aThousandRequestsWithRandomCancellationEachEndExactlyOnce() async throws {
        server.route(prefix: "/img/") { _, connection in
            // A little pacing so cancels land before, during and after transfers.
            try connection.pause(for: .milliseconds(Int.random(in: 0...3)))
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
        let loader = makeLoader { $0.maxConcurrentDownloads = 8 }
        let events = loader.events()
        let done = CompletionCounter()
        var tokens: [HTTPDownloadToken] = []
        for index in 0..<1000 {
            let url = server.url("/img/\(index % 100)")
            let token = try loader.download(url) { result in
                #expect((try? result.get().data) == Data(FaultServer.image))
                done.record(index)
            }.get()
            tokens.append(token)
            if Bool.random() { await Task.yield() }
            if index > 0, Int.random(in: 0..<3) == 0 { tokens[Int.random(in: 0..<index)].cancel() }
        }
        for token in tokens where Int.random(in: 0..<4) == 0 { token.cancel() }
        let cancelled = tokens.filter(\.isCancelled).count
        await done.wait(forTotal: 1000 - cancelled)
        await waitUntilIdle(loader, events: events)
        for (index, token) in tokens.enumerated() {
            #expect(done.count(index) == (token.isCancelled ? 0 : 1), "request \(index)")
        }
        #expect(cancelled > 0)
        #expect(done.total == 1000 - cancelled)
        #expect(loader.liveTransferCount == 0)
    }
}
