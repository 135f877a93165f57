import Foundation
import Testing
import WebImageCore
import WebImageHTTPLoader

/// A loader that goes away ends its work instead of leaking a thread or a caller.
@Suite(.timeLimit(.minutes(1)))
struct LoaderLifetimeTests {
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
