import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageHTTPLoader

/// One slow host cannot hold back another: separate global and per-host limits, hosts served in turn,
/// and stalls that give their slot back quickly. Two servers on different ports are two hosts.
@Suite(.timeLimit(.minutes(1)))
struct FairnessTests {
    let slow: LoopbackHTTPServer
    let healthy: LoopbackHTTPServer

    init() throws {
        slow = try FaultServer.make()
        healthy = try FaultServer.make()
    }

    @Test func manyStalledRequestsToOneHostDoNotDelayAnotherHost() async throws {
        // Six slots, two per host: the stalled host can hold only two of them.
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 6; $0.maxConnectionsPerHost = 2
        }
        let events = loader.events()
        let stalled = CompletionCounter()
        let tokens = try (0..<20).map { index in
            try loader.download(slow.url("/stall/\(index)")) { _ in stalled.record(index) }.get()
        }
        let result = await load(loader, healthy.url("/ok.pgm"))
        #expect(try result.get().data == Data(FaultServer.image))
        // The stalled transfers run for the whole 20 s timeout; none has ended.
        #expect(stalled.total == 0)
        #expect(slow.totalRequestCount <= 2)
        for token in tokens { token.cancel() }
        await waitUntilIdle(loader, events: events)
    }

    @Test func withTheInteractivePresetRequestsHeldOnOneHostDoNotDelayAnotherHost() async throws {
        // As many held requests as there are slots in all: were a host allowed every slot, the other
        // host's image would wait until the held ones ended (30 s of silence with this preset).
        var configuration = HTTPLoaderConfiguration.interactive
        configuration.coders = ImageCodersManager(coders: [PGMCoder()])
        let loader = HTTPLoader(configuration: configuration)
        let gate = Gate()
        let arrivals = CompletionCounter()
        slow.route(prefix: "/held/") { [gate, arrivals] _, connection in
            arrivals.record(0)
            gate.pass()
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
        let events = loader.events()
        let heldCount = configuration.maxConcurrentDownloads
        let held = CompletionCounter()
        let heldFailures = Locked(0)
        for index in 0..<heldCount {
            _ = try loader.download(slow.url("/held/\(index)")) { result in
                if failure(result) != nil { heldFailures.withLock { $0 += 1 } }
                held.record(index)
            }.get()
        }
        await arrivals.wait(forTotal: configuration.maxConnectionsPerHost)

        let result = await load(loader, healthy.url("/ok.pgm"))
        #expect(try result.get().data == Data(FaultServer.image))
        // Still held: the healthy host's image did not wait for them.
        #expect(held.total == 0)
        #expect(slow.totalRequestCount == configuration.maxConnectionsPerHost)

        gate.open(heldCount)
        await held.wait(forTotal: heldCount)
        #expect(heldFailures.withLock { $0 } == 0)
        #expect(slow.totalRequestCount == heldCount)
        await waitUntilIdle(loader, events: events)
    }

    @Test func aFreedSlotGoesToTheWaitingHostBeforeTheBusyHostsQueue() async throws {
        // One limit for everything, so the slow host may fill every slot; the queue must still take
        // the other host's request next when a slot frees, not the slow host's third.
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 2
            $0.maxConnectionsPerHost = 2
            $0.lowSpeedLimit = 100
            $0.lowSpeedTime = .seconds(1)
        }
        let events = loader.events()
        let done = CompletionCounter()
        for index in 0..<8 {
            _ = loader.download(slow.url("/stall/\(index)")) { _ in done.record(index) }
        }
        let healthyResult = await load(loader, healthy.url("/ok.pgm"))
        #expect(try healthyResult.get().data == Data(FaultServer.image))
        await done.wait(forTotal: 8)
        // The order transfers started in: the two stalled ones that held the slots, then, when both
        // stall out at once, one round that starts one request of each host in either order, so at
        // most three come before the healthy host's (strict FIFO would have put all eight first).
        var starts: [URL] = []
        for await event in events {
            if case .started(_, let url) = event { starts.append(url) }
            if starts.count == 9 { break }
        }
        let healthyPosition = starts.firstIndex { $0.port == Int(healthy.port) }
        #expect(healthyPosition.map { $0 <= 3 } == true, "started in order \(starts.map(\.path))")
        await waitUntilIdle(loader, events: events)
    }

    @Test func aDripGivesItsSlotBackAtTheLowSpeedFloor() async throws {
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 1; $0.lowSpeedLimit = 100; $0.lowSpeedTime = .seconds(1)
        }
        let events = loader.events()
        let drip = Locked<ImageError?>(nil)
        _ = loader.download(slow.url("/drip")) { result in drip.withLock { $0 = failure(result) } }
        let next = await load(loader, healthy.url("/ok.pgm"))
        #expect(try next.get().data == Data(FaultServer.image))
        #expect(drip.withLock { $0 } == .timeout)
        await waitUntilIdle(loader, events: events)
    }

    @Test func aSilentServerGivesItsSlotBackAtTheResponseHeadTimeout() async throws {
        // The other limits are far beyond the suite's one-minute limit: only the head timeout ends it.
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 1
            $0.responseHeadTimeout = .seconds(1)
            $0.timeout = .seconds(600)
            $0.lowSpeedTime = .seconds(600)
        }
        let events = loader.events()
        let silent = Locked<ImageError?>(nil)
        _ = loader.download(slow.url("/silent")) { result in silent.withLock { $0 = failure(result) } }
        let next = await load(loader, healthy.url("/ok.pgm"))
        #expect(try next.get().data == Data(FaultServer.image))
        #expect(silent.withLock { $0 } == .timeout)
        await waitUntilIdle(loader, events: events)
    }

    @Test func aResponseHeadTimeoutDoesNotCutABodyThatIsStillArriving() async throws {
        let loader = makeLoader { $0.responseHeadTimeout = .seconds(1) }
        let events = loader.events()
        let ended = Locked(false)
        let token = try loader.download(slow.url("/drip")) { _ in ended.withLock { $0 = true } }.get()
        for await event in events {
            if case .responseReceived = event { break }
        }
        // The head came at once; its body drips for minutes. Past the 1 s head timeout (a window is
        // unavoidable when proving that nothing happens), the transfer must still be running.
        try await Task.sleep(for: .seconds(2))
        #expect(!ended.withLock { $0 })
        token.cancel()
        await waitUntilIdle(loader, events: events)
    }

    @Test func theInteractivePresetIsTheDefaultAndBothPresetsLimitEachHostBelowTheTotal() {
        let interactive = HTTPLoaderConfiguration.interactive
        let defaults = HTTPLoaderConfiguration()
        #expect(interactive.maxConcurrentDownloads == defaults.maxConcurrentDownloads)
        #expect(interactive.maxConnectionsPerHost == defaults.maxConnectionsPerHost)
        #expect(interactive.maxConnectionsPerHost == 6)
        #expect(interactive.maxConnectionsPerHost < interactive.maxConcurrentDownloads)
        #expect(interactive.responseHeadTimeout == nil)
        #expect(interactive.proxy == .direct)
        let server = HTTPLoaderConfiguration.server
        #expect(server.maxConnectionsPerHost < server.maxConcurrentDownloads)
        #expect(server.responseHeadTimeout != nil)
        #expect(server.connectTimeout < defaults.connectTimeout)
        #expect(server.lowSpeedLimit > defaults.lowSpeedLimit && server.lowSpeedTime < defaults.lowSpeedTime)
        #expect(server.refusesPrivateAddresses)
        #expect(server.proxy == .direct)
    }
}
