import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageHTTPLoader

/// `HTTPLoaderConfiguration.allowsRedirect` judges every redirect hop before the loader goes there: a
/// refused target fails the load with `.requestRefused` and is never contacted; allowed hops are
/// followed as without a policy.
@Suite(.timeLimit(.minutes(1)))
struct RedirectPolicyTests {
    /// The origin a server allows, which redirects: /away to the other origin, /via to its own /away,
    /// and FaultServer's /chain/N down to its image.
    let allowed: LoopbackHTTPServer
    /// An origin outside the policy, serving the image at /ok.pgm.
    let elsewhere: LoopbackHTTPServer

    init() throws {
        allowed = try FaultServer.make()
        elsewhere = try FaultServer.make()
        let target = elsewhere.url("/ok.pgm").absoluteString
        allowed.route("/away") { _, connection in try connection.respond(status: 302, headers: [("Location", target)]) }
        allowed.route("/via") { _, connection in try connection.respond(status: 302, headers: [("Location", "/away")]) }
    }

    /// A policy that allows only `port` on 127.0.0.1 and records every URL it is asked about.
    private func policy(allowingPort port: UInt16) -> AskedURLs { AskedURLs(allowedPort: port) }

    @Test func aRedirectOutsideThePolicyFailsBeforeTheTargetIsContacted() async {
        let asked = policy(allowingPort: allowed.port)
        let loader = makeLoader { $0.allowsRedirect = asked.allows }
        let error = failure(await load(loader, allowed.url("/away")))
        guard case .requestRefused(let reason) = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(reason.contains(elsewhere.url("/ok.pgm").absoluteString))
        #expect(asked.urls == [elsewhere.url("/ok.pgm")])
        #expect(elsewhere.acceptedConnectionCount == 0, "the refused target was connected to")
        #expect(loader.shouldBlockFailedURL(allowed.url("/away"), error: error!) == false)
    }

    @Test func everyHopIsAskedAndAllowedHopsAreFollowed() async throws {
        let asked = policy(allowingPort: allowed.port)
        let loader = makeLoader { $0.allowsRedirect = asked.allows }
        let (result, metrics) = await loadWithMetrics(loader, allowed.url("/chain/2"))
        #expect(try result.get().data == Data(FaultServer.image))
        #expect(asked.urls == [allowed.url("/chain/1"), allowed.url("/chain/0")])
        #expect(metrics?.redirectCount == 2)
    }

    @Test func aRefusalLaterInAChainStopsItThere() async {
        let asked = policy(allowingPort: allowed.port)
        let loader = makeLoader { $0.allowsRedirect = asked.allows }
        let error = failure(await load(loader, allowed.url("/via")))
        guard case .requestRefused = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(asked.urls == [allowed.url("/away"), elsewhere.url("/ok.pgm")])
        #expect(allowed.requestCount(for: "/away") == 1)
        #expect(elsewhere.acceptedConnectionCount == 0)
    }

    @Test func aRefusedRedirectIsNotRetried() async {
        let asked = policy(allowingPort: allowed.port)
        let loader = makeLoader {
            $0.allowsRedirect = asked.allows
            $0.retryPolicy = HTTPBackoffRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))
        }
        guard case .requestRefused = failure(await load(loader, allowed.url("/away"))) else {
            Issue.record("expected .requestRefused"); return
        }
        #expect(allowed.requestCount(for: "/away") == 1)
    }

    @Test func aPolicyThatAllowsTheTargetLetsTheRedirectThrough() async throws {
        let asked = AskedURLs(allowedPort: nil)
        let loader = makeLoader { $0.allowsRedirect = asked.allows }
        #expect(try await load(loader, allowed.url("/away")).get().data == Data(FaultServer.image))
        #expect(asked.urls == [elsewhere.url("/ok.pgm")])
        #expect(elsewhere.requestCount(for: "/ok.pgm") == 1)
    }
}

/// A redirect policy for tests: allows 127.0.0.1 on `allowedPort` (every URL when nil) and records
/// the URLs it was asked about, in order.
private final class AskedURLs: Sendable {
    private let allowedPort: UInt16?
    /// Guards the URLs asked about (asked on the loader's event thread, read by the test).
    private let asked = Locked<[URL]>([])

    init(allowedPort: UInt16?) { self.allowedPort = allowedPort }

    /// The policy itself, for `HTTPLoaderConfiguration.allowsRedirect`.
    var allows: @Sendable (URL) -> Bool {
        { [self] url in
            asked.withLock { $0.append(url) }
            guard let allowedPort else { return true }
            return url.host == "127.0.0.1" && url.port == Int(allowedPort)
        }
    }

    var urls: [URL] { asked.withLock { $0 } }
}
