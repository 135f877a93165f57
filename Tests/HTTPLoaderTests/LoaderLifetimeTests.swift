import Foundation
import Testing
import WebImageCore

@testable import WebImageHTTPLoader

/// A loader that goes away ends its work instead of leaking a thread or a caller.
@Suite(.timeLimit(.minutes(1)))
struct LoaderLifetimeTests {
    @Test func aLoaderWhoseThreadIsRefusedFailsEveryRequestAtOnce() async throws {
        let server = try FaultServer.make()
        var configuration = HTTPLoaderConfiguration()
        configuration.coders = ImageCodersManager(coders: [PGMCoder()])
        // What pthread_create answers at a process's or container's thread limit.
        let loader = HTTPLoader(configuration: configuration, startThread: { _ in EAGAIN })
        for _ in 0..<2 {
            let result = await load(loader, server.url("/ok.pgm"))
            guard let loading = failure(result)?.loadingFailure,
                case .network(let code) = loading.reason(as: HTTPLoaderFailure.self)
            else {
                Issue.record("expected .network, got \(result)")
                return
            }
            let message = loading.message
            #expect(code == 2)  // CURLE_FAILED_INIT
            #expect(message.contains("event thread"))
        }
        #expect(server.totalRequestCount == 0)
        #expect(loader.liveTransferCount == 0)
    }

    @Test func releasingTheLoaderEndsRunningAndWaitingTransfersWithCancelled() async throws {
        let server = try FaultServer.make()
        let done = CompletionCounter()
        let errors = CompletionCounter()
        var loader: HTTPLoader? = makeLoader { $0.maxConcurrentDownloads = 1 }
        let events = loader!.events()
        for path in ["/stall", "/ok.pgm"] {
            _ = loader!.download(server.url(path)) { result in
                if failure(result) == .cancelled { errors.record(0) }
                done.record(0)
            }
        }
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() { if case .responseReceived = event { break } }
        loader = nil
        await done.wait(forTotal: 2)
        #expect(errors.total == 2)
        // The event stream ends with the loader.
        while await iterator.next() != nil {}
    }
}
