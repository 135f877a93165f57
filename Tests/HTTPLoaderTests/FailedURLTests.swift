import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader

/// Which failures put a URL on the manager's failed list: only answers that say the resource is bad.
@Suite(.timeLimit(.minutes(1)))
struct FailedURLTests {
    let server: LoopbackHTTPServer

    init() throws {
        server = try FaultServer.make()
        for status in [400, 401, 403, 404, 408, 410, 429, 500, 502, 503, 504] {
            server.route("/status/\(status)") { _, connection in
                try connection.respond(
                    status: status, headers: [("Content-Type", "text/plain")], body: Array("no".utf8))
            }
        }
    }

    /// Loads `url` through a manager and waits for its final answer.
    private func loadThroughManager(_ manager: ImageManager, _ url: URL) async -> ImageError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ImageError?, Never>) in
            manager.loadImage(with: url) { result in
                switch result {
                case .failure(let error): continuation.resume(returning: error)
                case .success(let loaded) where loaded.isFinal: continuation.resume(returning: nil)
                case .success: break
                }
            }
        }
    }

    private func makeManager(_ adjust: (inout HTTPLoaderConfiguration) -> Void = { _ in }) -> ImageManager {
        let loaders = ImageLoadersManager()
        loaders.addLoader(makeLoader(adjust))
        return ImageManager(cache: RecordingCache(), loader: loaders, coders: ImageCodersManager(coders: [PGMCoder()]))
    }

    @Test func notFoundAndGoneAreBlockedAndServerTroubleIsNot() async {
        let manager = makeManager()
        var blocked: [Int] = []
        for status in [400, 401, 403, 404, 408, 410, 429, 500, 502, 503, 504] {
            let url = server.url("/status/\(status)")
            #expect(await loadThroughManager(manager, url) == .invalidStatusCode(status))
            if manager.isFailedURL(url) { blocked.append(status) }
        }
        #expect(blocked == [400, 404, 410])
    }

    @Test func aBlockedURLFailsWithoutARequestAndAServiceUnavailableOneIsAskedAgain() async {
        let manager = makeManager()
        let missing = server.url("/status/404")
        let busy = server.url("/status/503")
        _ = await loadThroughManager(manager, missing)
        _ = await loadThroughManager(manager, busy)
        #expect(await loadThroughManager(manager, missing) == .blockedURL(missing))
        #expect(await loadThroughManager(manager, busy) == .invalidStatusCode(503))
        #expect(server.requestCount(for: "/status/404") == 1)
        #expect(server.requestCount(for: "/status/503") == 2)
    }

    @Test func theBlockingStatusesAreConfigurable() async {
        let manager = makeManager { $0.failedURLStatusCodes = [403] }
        let forbidden = server.url("/status/403")
        let missing = server.url("/status/404")
        _ = await loadThroughManager(manager, forbidden)
        _ = await loadThroughManager(manager, missing)
        #expect(manager.isFailedURL(forbidden))
        #expect(!manager.isFailedURL(missing))
    }

    @Test func timeoutsAndCutBodiesAreNeverBlocked() async {
        let manager = makeManager { $0.timeout = .seconds(1) }
        let stalled = server.url("/stall")
        let truncated = server.url("/truncated")
        #expect(await loadThroughManager(manager, stalled) == .timeout)
        _ = await loadThroughManager(manager, truncated)
        #expect(!manager.isFailedURL(stalled))
        #expect(!manager.isFailedURL(truncated))
    }
}
