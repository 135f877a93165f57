import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore

@testable import WebImageHTTPLoader

/// Every misbehaving server ends in the right typed error, within its timeout, leaking no transfer.
@Suite(.timeLimit(.minutes(1)))
struct FaultTests {
    let server: LoopbackHTTPServer

    init() throws { server = try FaultServer.make() }

    /// Loads `path` with `loader` and returns the error, after checking that no transfer is left.
    private func error(
        _ path: String, loader: HTTPLoader, options: ImageOptions = [],
        context: ImageContext = ImageContext()
    ) async -> ImageError? {
        let events = loader.events()
        let result = await load(loader, server.url(path), options: options, context: context)
        await waitUntilIdle(loader, events: events)
        #expect(loader.liveTransferCount == 0)
        return failure(result)
    }

    @Test func aWellBehavedServerDeliversTheBytesAndResponse() async throws {
        let loader = makeLoader()
        let result = try await load(loader, server.url("/ok.pgm")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(result.response?.statusCode == 200)
        #expect(result.response?.mimeType == "image/x-portable-graymap")
        #expect(loader.liveTransferCount == 0)
    }

    @Test func aSlowDripFailsWithTimeoutAtTheLowSpeedLimit() async {
        let loader = makeLoader {
            $0.lowSpeedLimit = 100; $0.lowSpeedTime = .seconds(1)
        }
        #expect(await error("/drip", loader: loader) == .timeout)
    }

    @Test func aStalledServerFailsWithTimeoutAtTheTotalTimeout() async {
        let loader = makeLoader { $0.timeout = .seconds(1) }
        #expect(await error("/stall", loader: loader) == .timeout)
    }

    @Test func aTruncatedBodyIsANetworkError() async {
        let loader = makeLoader()
        let error = await error("/truncated", loader: loader)
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 18)  // CURLE_PARTIAL_FILE
    }

    @Test func aContentLengthLongerThanTheBodyIsANetworkError() async {
        let loader = makeLoader()
        let error = await error("/wrong-length", loader: loader)
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 18)
    }

    @Test func anEndlessChunkedBodyStopsAtTheSizeLimit() async {
        let loader = makeLoader { $0.maxResponseSize = 1 << 20 }
        #expect(await error("/endless", loader: loader) == .responseTooLarge(limit: 1 << 20))
    }

    @Test func aDeclaredLengthOverTheLimitStopsBeforeTheBody() async {
        let loader = makeLoader { $0.maxResponseSize = 100 }
        #expect(await error("/ok.pgm", loader: loader) == .responseTooLarge(limit: 100))
    }

    @Test func notFoundAndServerErrorsCarryTheirStatusAndOnlyNotFoundIsBlocked() async {
        let loader = makeLoader()
        let notFound = await error("/not-found", loader: loader)
        let serverError = await error("/server-error", loader: loader)
        #expect(notFound == .invalidStatusCode(404))
        #expect(serverError == .invalidStatusCode(500))
        #expect(loader.shouldBlockFailedURL(server.url("/not-found"), error: notFound!))
        #expect(!loader.shouldBlockFailedURL(server.url("/server-error"), error: serverError!))
    }

    @Test func transientFailuresAreNotBlocked() {
        let loader = makeLoader()
        let url = server.url("/x")
        #expect(!loader.shouldBlockFailedURL(url, error: .cancelled))
        #expect(!loader.shouldBlockFailedURL(url, error: .timeout))
        #expect(
            !loader.shouldBlockFailedURL(
                url, error: .httpLoader(.network(curlCode: 6), message: "Could not resolve host")))
        #expect(
            !loader.shouldBlockFailedURL(url, error: .httpLoader(.network(curlCode: 7), message: "Could not connect")))
        #expect(loader.shouldBlockFailedURL(url, error: .badImageData(reason: "garbage")))
    }

    @Test func aNotModifiedAnswerToValidatorsIsCacheNotModified() async {
        let loader = makeLoader()
        var context = ImageContext()
        context.cacheValidators = CacheValidators(etag: "\"v1\"")
        #expect(
            await error("/etag.pgm", loader: loader, options: [.refreshCached], context: context) == .cacheNotModified)
        #expect(server.requestLog.last?.headers["if-none-match"] == "\"v1\"")
    }

    @Test func aNotModifiedNobodyAskedForIsABadStatus() async {
        let loader = makeLoader()
        #expect(await error("/unasked-304", loader: loader) == .invalidStatusCode(304))
    }

    @Test func aRedirectChainIsFollowedToTheImage() async throws {
        let loader = makeLoader()
        let result = try await load(loader, server.url("/chain/3")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(result.response?.url.path == "/chain/0")
        for hop in 0...3 { #expect(server.requestCount(for: "/chain/\(hop)") == 1) }
    }

    @Test func moreRedirectsThanTheLimitFail() async {
        let loader = makeLoader { $0.maxRedirects = 5 }
        let error = await error("/chain/6", loader: loader)
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 47)  // CURLE_TOO_MANY_REDIRECTS
        #expect(server.requestCount(for: "/chain/0") == 0)
    }

    @Test func aRedirectLoopEndsAtTheLimit() async {
        let loader = makeLoader()
        let error = await error("/loop", loader: loader)
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 47)
        #expect(server.requestCount(for: "/loop") == 6)  // the request and five redirects
    }

    @Test func aRedirectToAFileURLIsRefused() async {
        let loader = makeLoader()
        let error = await error("/to-file", loader: loader)
        guard case .requestRefused = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
    }

    @Test func aNonImageContentTypeIsRejectedWhenTypesAreRestricted() async {
        let loader = makeLoader { $0.acceptableContentTypes = ["image/*"] }
        #expect(await error("/page.html", loader: loader) == .invalidContentType("text/html"))
    }

    @Test func hugeHeadersStopAtTheHeaderLimit() async {
        let loader = makeLoader { $0.maxHeaderSize = 64 * 1024 }
        #expect(await error("/huge-headers", loader: loader)?.httpLoaderFailure == .headerTooLarge(limit: 64 * 1024))
    }

    @Test func oneHugeHeaderLineIsHeaderTooLargeNotOutOfMemory() async {
        let loader = makeLoader { $0.maxHeaderSize = 64 * 1024 }
        let error = await error("/huge-header-line", loader: loader)
        #expect(error?.httpLoaderFailure == .headerTooLarge(limit: 64 * 1024), "got \(String(describing: error))")
    }

    @Test func aReplyThatIsNotHTTPIsAMalformedResponse() async {
        let loader = makeLoader()
        let error = await error("/garbage", loader: loader)
        guard case .malformedResponse = error?.httpLoaderFailure else {
            Issue.record("expected .malformedResponse, got \(String(describing: error))"); return
        }
        #expect(!loader.shouldBlockFailedURL(server.url("/garbage"), error: error!))
    }

    @Test func aDeclaredLengthOverTheLimitFailsWhenTheHeadArrivesEvenWithoutABody() async {
        // Every timeout far beyond the suite's one-minute limit: only the head can end this transfer.
        let loader = makeLoader {
            $0.maxResponseSize = 1 << 20; $0.timeout = .seconds(600); $0.lowSpeedTime = .seconds(600)
        }
        #expect(await error("/huge-declared", loader: loader) == .responseTooLarge(limit: 1 << 20))
    }

    @Test func aRefusedPortIsANetworkErrorNotATimeout() async throws {
        // A port bound but not listening, held to the end: connections are refused, and no server of a
        // test running meanwhile can be given the port.
        let closed = try RefusingPort()
        defer { closed.close() }
        let url = closed.url("/gone")
        let loader = makeLoader()
        let events = loader.events()
        let error = failure(await load(loader, url))
        await waitUntilIdle(loader, events: events)
        guard case .network(let code) = error?.httpLoaderFailure else {
            Issue.record("expected .network, got \(String(describing: error))"); return
        }
        #expect(code == 7)  // CURLE_COULDNT_CONNECT
        #expect(!loader.shouldBlockFailedURL(url, error: error!))
    }
}
