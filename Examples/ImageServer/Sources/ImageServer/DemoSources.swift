import Foundation
import Hummingbird

/// The demo's origin: a ``StaticSourceServer`` on a free loopback port, started before the image server
/// so the demo page can name its address.
public enum DemoSources {
    /// Starts serving `files` on 127.0.0.1 and returns once the port is known, with the task running the
    /// origin (cancel it to stop the origin).
    public static func start(
        files: [String: StaticSourceServer.File]
    ) async throws
        -> (task: Task<Void, any Error>, baseURL: URL)
    {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = StaticSourceServer(files: files).application { port in continuation.yield(port) }
        let task = Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return (task, URL(string: "http://127.0.0.1:\(port)/")!)
    }
}
