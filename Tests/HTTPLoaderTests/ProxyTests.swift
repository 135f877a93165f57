import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore

@testable import WebImageHTTPLoader

/// Proxies come from the configuration, and the SSRF guard judges the target, not the proxy: a
/// request through an allowed proxy to a refused address is refused, on the first hop and on every
/// redirect. Loopback stands in for the refused network; 127.0.0.2 is the one "intranet origin" a
/// test allows. Nothing leaves 127.0.0.0/8 (the test proxy only connects there).
@Suite(.timeLimit(.minutes(1)))
struct ProxyTests {
    let server: LoopbackHTTPServer
    let proxy: ForwardProxy

    init() throws {
        server = try FaultServer.make()
        proxy = try ForwardProxy()
    }

    private func run(_ loader: HTTPLoader, _ url: URL) async -> Result<LoadedImage, ImageError> {
        let events = loader.events()
        let result = await load(loader, url)
        await waitUntilIdle(loader, events: events)
        #expect(loader.liveTransferCount == 0)
        return result
    }

    @Test func anExplicitProxyCarriesTheRequest() async throws {
        let loader = makeLoader { $0.proxy = .url(proxy.url) }
        let result = try await run(loader, server.url("/ok.pgm")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(proxy.requestLines == ["GET \(server.url("/ok.pgm").absoluteString) HTTP/1.1"])
    }

    @Test func proxyVariablesInTheEnvironmentAreIgnoredUnlessOptedIn() async throws {
        // The variables are the configuration's: a test must not change the process environment, which
        // other threads read meanwhile.
        let variables = ["http_proxy": proxy.url.absoluteString]
        let direct = makeLoader { $0.proxyEnvironment = variables }
        _ = try await run(direct, server.url("/ok.pgm")).get()
        #expect(proxy.requestLines.isEmpty)
        #expect(server.totalRequestCount == 1)

        let fromEnvironment = makeLoader {
            $0.proxy = .environment; $0.proxyEnvironment = variables
        }
        _ = try await run(fromEnvironment, server.url("/ok.pgm")).get()
        #expect(proxy.requestLines == ["GET \(server.url("/ok.pgm").absoluteString) HTTP/1.1"])
        #expect(server.totalRequestCount == 2)

        let excluded = makeLoader {
            $0.proxy = .environment
            $0.proxyEnvironment = variables.merging(["no_proxy": "127.0.0.1"]) { $1 }
        }
        _ = try await run(excluded, server.url("/ok.pgm")).get()
        #expect(proxy.requestLines.count == 1)
        #expect(server.totalRequestCount == 3)
    }

    @Test func environmentVariablesAreReadByLibcurlsRules() {
        // HTTP_PROXY is never read (CGI sets it from a request header); the other names also in capitals.
        let upper = EnvironmentProxy([
            "HTTP_PROXY": "http://cgi:1", "HTTPS_PROXY": "http://upper:2",
            "ALL_PROXY": "http://all:3", "NO_PROXY": "example.com",
        ])
        #expect(upper.proxy(forScheme: "http") == "http://all:3")
        #expect(upper.proxy(forScheme: "https") == "http://upper:2")
        #expect(upper.noProxy == "example.com")
        // Lowercase wins; a variable set but empty counts as unset (libcurl's curl_getenv), so the next
        // name is read.
        let lower = EnvironmentProxy([
            "http_proxy": "", "https_proxy": "http://lower:4", "HTTPS_PROXY": "http://upper:2",
            "all_proxy": "http://all:5", "ALL_PROXY": "http://all:3", "no_proxy": "a", "NO_PROXY": "b",
        ])
        #expect(lower.proxy(forScheme: "http") == "http://all:5")
        #expect(lower.proxy(forScheme: "https") == "http://lower:4")
        #expect(lower.noProxy == "a")
        let empty = EnvironmentProxy([
            "https_proxy": "", "HTTPS_PROXY": "http://upper:2", "no_proxy": "", "NO_PROXY": "b",
        ])
        #expect(empty.proxy(forScheme: "https") == "http://upper:2" && empty.noProxy == "b")
        #expect(EnvironmentProxy([:]).proxy(forScheme: "https") == "" && EnvironmentProxy([:]).noProxy == "")
        // Only a proxy that depends on the scheme makes the loader follow redirects itself.
        #expect(lower.differsByScheme)
        #expect(!EnvironmentProxy(["all_proxy": "http://all:3"]).differsByScheme)
    }

    @Test func aRedirectToTheOtherSchemeTakesThatSchemesProxyFromTheEnvironment() async throws {
        let fixtures = try TLSFixtures.shared.get()
        let https = try TLSFront(backend: server, chain: fixtures.serverCertificate, key: fixtures.serverKey)
        let target = https.url("/ok.pgm")
        server.route("/to-https") { _, connection in
            try connection.respond(status: 302, headers: [("Location", target.absoluteString)])
        }
        // http through the proxy, https direct (set but empty): the https hop must not use the first
        // hop's proxy, as it would if libcurl followed the redirect with the proxy it was given.
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.proxy = .environment
            $0.proxyEnvironment = ["http_proxy": proxy.url.absoluteString, "https_proxy": ""]
        }
        let result = try await run(loader, server.url("/to-https")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(result.response?.url == target)
        #expect(proxy.requestLines == ["GET \(server.url("/to-https").absoluteString) HTTP/1.1"])
    }

    @Test func theGuardRefusesALoopbackTargetBehindAProxy() async {
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true; $0.proxy = .url(proxy.url)
        }
        let error = failure(await run(loader, server.url("/ok.pgm")))
        guard case .requestRefused(let reason) = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(proxy.requestLines.isEmpty)
        #expect(server.totalRequestCount == 0)
    }

    @Test func theGuardResolvesTheTargetNameItselfBehindAProxy() async {
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true; $0.proxy = .url(proxy.url)
        }
        let error = failure(await run(loader, URL(string: "http://localhost:\(server.port)/ok.pgm")!))
        guard case .requestRefused = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(proxy.requestLines.isEmpty)
        #expect(server.totalRequestCount == 0)
    }

    @Test func anAllowedTargetIsReachedThroughATunnelToTheCheckedAddress() async throws {
        let intranet = try LoopbackHTTPServer(address: "127.0.0.2")
        intranet.route("/ok.pgm") { _, connection in
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true
            $0.allowedPrivateAddresses = ["127.0.0.2"]
            $0.proxy = .url(proxy.url)
        }
        let result = try await run(loader, intranet.url("/ok.pgm")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(proxy.requestLines == ["CONNECT 127.0.0.2:\(intranet.port) HTTP/1.1"])
    }

    @Test(arguments: [false, true])
    func theGuardRefusesARedirectToARefusedAddress(throughProxy: Bool) async throws {
        let intranet = try LoopbackHTTPServer(address: "127.0.0.2")
        let refusedTarget = server.url("/ok.pgm")
        intranet.route("/hop") { _, connection in
            try connection.respond(status: 302, headers: [("Location", refusedTarget.absoluteString)])
        }
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true
            $0.allowedPrivateAddresses = ["127.0.0.2"]
            if throughProxy { $0.proxy = .url(proxy.url) }
        }
        let error = failure(await run(loader, intranet.url("/hop")))
        guard case .requestRefused(let reason) = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(intranet.requestCount(for: "/hop") == 1)
        #expect(server.totalRequestCount == 0)
        #expect(proxy.requestLines.allSatisfy { $0.contains("127.0.0.2") })
    }

    @Test func redirectsFollowedThroughTheProxyKeepTheirLimit() async throws {
        let intranet = try LoopbackHTTPServer(address: "127.0.0.2")
        intranet.route(prefix: "/chain/") { request, connection in
            let hops = Int(request.path.dropFirst("/chain/".count)) ?? 0
            if hops == 0 {
                try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
            } else {
                try connection.respond(status: 302, headers: [("Location", "/chain/\(hops - 1)")])
            }
        }
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true
            $0.allowedPrivateAddresses = ["127.0.0.2"]
            $0.proxy = .url(proxy.url)
            $0.maxRedirects = 3
        }
        let followed = try await run(loader, intranet.url("/chain/3")).get()
        #expect(followed.data == Data(FaultServer.image))
        #expect(followed.response?.url.path == "/chain/0")
        let error = failure(await run(loader, intranet.url("/chain/4")))
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 47)  // CURLE_TOO_MANY_REDIRECTS
    }
}
