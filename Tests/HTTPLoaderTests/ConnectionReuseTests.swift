import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A pooled keep-alive connection holding bytes that no request asked for (an origin that sends past
/// its `Content-Length` in a later write of its own) never answers the next request to that origin:
/// the loader refuses the connection, closes it, and sends the request on a new one, where the origin
/// answers it. A connection with nothing unread is still reused.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionReuseTests {
    @Test func extraBytesAfterABodyNeverAnswerTheNextRequest() async throws {
        let metrics = TestBackends.metrics
        let refusedBefore = metrics.counterTotal(
            label: HTTPLoaderMetrics.staleConnections,
            dimensions: [("reason", "unread_bytes")])
        // Without the check, libcurl reads these as the next response: "Received HTTP/0.9 when not allowed".
        try await expectTheNextRequestGetsItsOwnAnswer(after: Array("garbage!".utf8))
        #expect(
            metrics.counterTotal(label: HTTPLoaderMetrics.staleConnections, dimensions: [("reason", "unread_bytes")])
                >= refusedBefore + 1)
    }

    @Test func aSecondResponseAfterABodyIsNeverTakenForAnotherURLsAnswer() async throws {
        // Without the check, this is /second.pgm's answer: a 200 with another image, cached under its URL.
        let smuggled = PGMCoder.file(width: 2, height: 2, pixels: [0xEE, 0xEE, 0xEE, 0xEE])
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: image/x-portable-graymap\r\nContent-Length: \(smuggled.count)\r\n\r\n"
        try await expectTheNextRequestGetsItsOwnAnswer(after: Array(response.utf8) + Array(smuggled))
    }

    /// Bytes that arrive just after the next request went out cannot be told from its answer; so a host
    /// caught sending unasked-for bytes once gets no connection reuse for a while.
    @Test func aHostCaughtSendingUnaskedBytesGetsAConnectionPerRequest() async throws {
        try await expectTheNextRequestGetsItsOwnAnswer(
            after: Array("garbage!".utf8),
            afterwards: { loader, url, origin in
                for _ in 0..<3 {
                    let again = await load(loader, url("/second.pgm"))
                    #expect(again.value?.data == OverflowingOrigin.secondBody, "\(again)")
                }
                // /first.pgm, then four /second.pgm, each on a connection of its own.
                #expect(origin.server.acceptedConnectionCount == 5)
                #expect(origin.maxRequestsOnOneConnection == 1)
            })
    }

    @Test func aSecondResponseIsRefusedWithHTTP2OffToo() async throws {
        // Without HTTP/2, every reused connection is checked, whatever its earlier heads said.
        let smuggled = PGMCoder.file(width: 1, height: 1, pixels: [0x11])
        let response = "HTTP/1.1 200 OK\r\nContent-Length: \(smuggled.count)\r\n\r\n"
        try await expectTheNextRequestGetsItsOwnAnswer(after: Array(response.utf8) + Array(smuggled)) {
            $0.enablesHTTP2 = false
        }
    }

    @Test func aSecondResponseOverHTTPSIsRefusedWithHTTP2On() async throws {
        // HTTPS with HTTP/2 offered (the default) and an origin that answers over HTTP/1.1: the extra
        // bytes come as a TLS record of their own, and the connection's HTTP/1.1 heads get it checked.
        let fixtures = try TLSFixtures.shared.get()
        let smuggled = PGMCoder.file(width: 1, height: 1, pixels: [0x22])
        let response = "HTTP/1.1 200 OK\r\nContent-Length: \(smuggled.count)\r\n\r\n"
        try await expectTheNextRequestGetsItsOwnAnswer(after: Array(response.utf8) + Array(smuggled), overTLS: fixtures)
        {
            $0.tls.caBundlePath = fixtures.rootCA.path
        }
    }

    /// The second URL redirects (from another server) to the overflowing origin, so the refused
    /// connection is a later hop's: libcurl's own redirect following (the whole transfer is sent again
    /// on new connections), or the loader's hop by hop (that hop alone is).
    @Test(arguments: [false, true])
    func aRedirectHopOntoARefusedConnectionGetsItsOwnAnswer(loaderFollows: Bool) async throws {
        let smuggled = PGMCoder.file(width: 1, height: 1, pixels: [0x33])
        let response = "HTTP/1.1 200 OK\r\nContent-Length: \(smuggled.count)\r\n\r\n"
        try await expectTheNextRequestGetsItsOwnAnswer(after: Array(response.utf8) + Array(smuggled), viaRedirect: true)
        {
            if loaderFollows { $0.allowsRedirect = { _ in true } }
        }
    }

    @Test func aConnectionWithNothingUnreadIsStillReused() async throws {
        let origin = try OverflowingOrigin(extra: nil)
        defer { origin.server.shutdown() }
        let loader = makeLoader()
        let first = await loadWithMetrics(loader, origin.server.url("/first.pgm"))
        #expect(try first.0.get().data == OverflowingOrigin.firstBody)
        let second = await loadWithMetrics(loader, origin.server.url("/second.pgm"))
        #expect(try second.0.get().data == OverflowingOrigin.secondBody)
        #expect(second.1?.reusedConnection == true)
        #expect(origin.connection(of: "/second.pgm") == origin.connection(of: "/first.pgm"))
        #expect(origin.server.acceptedConnectionCount == 1)
    }

    @Test func http2StreamsAreNeverRefused() async throws {
        // HTTP/2 frames name their stream, and a connection carries other streams' frames, PINGs and
        // SETTINGS at any time: its pending bytes are no reason to refuse it, joining before the first
        // response head or after.
        let fixtures = try TLSFixtures.shared.get()
        let root = fixtures.file("h2-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        for index in 0..<16 {
            try PGMCoder.sample(width: 16 + index).write(to: root.appendingPathComponent("\(index).pgm"))
        }
        let h2 = try NGHTTPServer(documentRoot: root, certificate: fixtures.serverCertificate, key: fixtures.serverKey)
        let log = RecordingLog()
        let loader = makeLoader(logger: log.logger(level: .debug)) {
            $0.tls.caBundlePath = fixtures.rootCA.path
        }
        for batch in [0..<8, 8..<16] {
            let urls = batch.map { (index: $0, url: h2.url("/\($0).pgm")) }
            let reused = await withTaskGroup(of: Bool.self) { group in
                for (index, url) in urls {
                    group.addTask {
                        let (result, metrics) = await loadWithMetrics(loader, url)
                        #expect(result.value?.data == PGMCoder.sample(width: 16 + index), "\(result)")
                        #expect(metrics?.httpVersion == "2")
                        return metrics?.reusedConnection == true
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(reused >= batch.count - 1, "streams rode one connection")
        }
        #expect(log.entries("pooled connection refused").isEmpty)
    }

    /// Loads /first.pgm, lets the origin write `extra` on that connection once the load is over (its
    /// connection back in libcurl's pool), waits until the bytes wait in the loader's socket, then loads
    /// /second.pgm: it must get its own body, from a new connection, and the first connection must
    /// carry nothing more. With `overTLS`, through a TLS front (one backend connection per TLS one);
    /// `viaRedirect`, by loading a URL of another server that redirects to /second.pgm.
    private func expectTheNextRequestGetsItsOwnAnswer(
        after extra: [UInt8], overTLS fixtures: TLSFixtures? = nil, viaRedirect: Bool = false,
        _ adjust: (inout HTTPLoaderConfiguration) -> Void = { _ in },
        afterwards: (HTTPLoader, (String) -> URL, OverflowingOrigin) async throws -> Void = { _, _, _ in }
    ) async throws {
        let origin = try OverflowingOrigin(extra: extra)
        defer {
            // A failed expectation must not leave the handler waiting out the gate's bound at shutdown.
            origin.releaseExtra.open()
            origin.server.shutdown()
        }
        let front = try fixtures.map {
            try TLSFront(backend: origin.server, chain: $0.serverCertificate, key: $0.serverKey)
        }
        let url = { (path: String) in front?.url(path) ?? origin.server.url(path) }
        let loader = makeLoader(adjust)
        let first = try await load(loader, url("/first.pgm")).get()
        #expect(first.data == OverflowingOrigin.firstBody)
        origin.releaseExtra.open()
        try await eventuallyAsync("the origin wrote the extra bytes", timeout: .seconds(30), every: .milliseconds(10)) {
            origin.extraWasSent
        }
        // Through the front they take another hop: wait until they reached the loader's socket.
        let port = front?.port ?? origin.server.port
        try await eventuallyAsync(
            "the extra bytes reached the loader's socket", timeout: .seconds(30), every: .milliseconds(10)
        ) { LoopbackTCPTable.unreadBytes(fromPort: Int(port)) > 0 }

        let redirector = try LoopbackHTTPServer()
        defer { redirector.shutdown() }
        let target = url("/second.pgm").absoluteString
        redirector.route("/to-second") { _, connection in
            try connection.respond(status: 302, headers: [("Location", target)])
        }
        let second = await load(loader, viaRedirect ? redirector.url("/to-second") : url("/second.pgm"))
        #expect(second.value?.data == OverflowingOrigin.secondBody, "\(second)")
        #expect(second.value?.response?.statusCode == 200)
        let firstConnection = try #require(origin.connection(of: "/first.pgm"))
        #expect(
            origin.connection(of: "/second.pgm") != firstConnection, "the second request came on the first connection")
        #expect(origin.requests(on: firstConnection) == 1)
        #expect(origin.server.acceptedConnectionCount == 2)
        try await afterwards(loader, url, origin)
    }
}

/// A loopback origin whose /first.pgm answers correctly and then, once the test opens ``releaseExtra``,
/// writes `extra` (bytes past its Content-Length) on the same connection in a write of its own and
/// sets ``extraWasSent``. /second.pgm answers with its own body. Records which connection each request
/// came on.
private final class OverflowingOrigin: Sendable {
    static let firstBody = PGMCoder.sample()
    static let secondBody = PGMCoder.file(width: 4, height: 1, pixels: [1, 2, 3, 4])
    static let headers = [("Content-Type", "image/x-portable-graymap")]

    /// The server; its routes hold this object (which does not hold them back).
    let server: LoopbackHTTPServer
    /// Opened by the test once the first load is over.
    let releaseExtra = Gate()
    private let extra: [UInt8]?

    private struct State {
        var connections: [(path: String, connection: Int)] = []
        var extraSent = false
    }

    /// Guards the request record and the extra-sent flag, written by the server's connection threads.
    private let state = Locked(State())

    init(extra: [UInt8]?) throws {
        self.extra = extra
        server = try LoopbackHTTPServer()
        server.route("/first.pgm") { [unowned self] request, connection in try answerFirst(request, connection) }
        server.route("/second.pgm") { [unowned self] request, connection in
            note(request, connection)
            try connection.respond(headers: Self.headers, body: [UInt8](Self.secondBody))
        }
    }

    private func answerFirst(_ request: HTTPServerRequest, _ connection: HTTPServerConnection) throws {
        note(request, connection)
        try connection.respond(headers: Self.headers, body: [UInt8](Self.firstBody))
        guard let extra else { return }
        releaseExtra.pass()
        try connection.write(extra)
        state.withLock { $0.extraSent = true }
    }

    private func note(_ request: HTTPServerRequest, _ connection: HTTPServerConnection) {
        let number = connection.number
        state.withLock { $0.connections.append((request.path, number)) }
    }

    var extraWasSent: Bool { state.withLock { $0.extraSent } }

    /// The connection the first request for `path` came on.
    func connection(of path: String) -> Int? {
        state.withLock { $0.connections.first { $0.path == path }?.connection }
    }

    /// Requests that came on `connection`.
    func requests(on connection: Int) -> Int {
        state.withLock { $0.connections.count { $0.connection == connection } }
    }

    /// The most requests any one connection carried.
    var maxRequestsOnOneConnection: Int {
        state.withLock { state in
            Dictionary(grouping: state.connections, by: \.connection).values.map(\.count).max() ?? 0
        }
    }
}

private extension Result {
    var value: Success? { try? get() }
}
