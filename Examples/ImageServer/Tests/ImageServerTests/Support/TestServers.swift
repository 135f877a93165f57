import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import WebImageTestSupport

@testable import ImageServer

/// An image server and its origin, both on 127.0.0.1 with ports picked by the system, run in one
/// `ServiceGroup` for the duration of a test.
final class TestServers: Sendable {
    let server: ImageServer
    let serverPort: Int
    let sourcePort: Int
    /// The port of `/metrics` when the configuration gives it one (`metricsBind`).
    let metricsPort: Int?
    let group: ServiceGroup
    let running: Task<Void, any Error>

    /// The image server's base URL.
    var baseURL: String { "http://127.0.0.1:\(serverPort)" }

    /// The origin's URL for `path` (`/photo.jpg`).
    func sourceURL(_ path: String) -> String { "http://127.0.0.1:\(sourcePort)\(path)" }

    /// Starts the origin with `files`, then the server with `configure` applied to a configuration that
    /// binds a free loopback port and may fetch from loopback.
    static func start(
        files: [String: StaticSourceServer.File] = Fixtures.standardFiles,
        configure: (inout ServerConfiguration) throws -> Void = { _ in }
    ) async throws -> TestServers {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.allowsLoopbackSources = true
        try configure(&configuration)
        var logger = Logger(label: "test-image-server")
        logger.logLevel = .critical
        let server = try ImageServer(configuration: configuration, logger: logger)

        let (sourcePort, serverPort) = (ReportedPort(), ReportedPort())
        let source = StaticSourceServer(files: files).application(logger: logger) { port in sourcePort.report(port) }
        let app = server.application { port in serverPort.report(port) }
        let metricsPort = ReportedPort()
        let metricsApp = server.metricsApplication { port in metricsPort.report(port) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [source, app] + (metricsApp.map { [$0] } ?? []) + server.backgroundServices(), logger: logger)
        )
        let running = Task { try await group.run() }
        return TestServers(
            server: server, serverPort: try await serverPort.wait(), sourcePort: try await sourcePort.wait(),
            metricsPort: metricsApp == nil ? nil : try await metricsPort.wait(), group: group, running: running)
    }

    private init(
        server: ImageServer, serverPort: Int, sourcePort: Int, metricsPort: Int?, group: ServiceGroup,
        running: Task<Void, any Error>
    ) {
        self.server = server
        self.serverPort = serverPort
        self.sourcePort = sourcePort
        self.metricsPort = metricsPort
        self.group = group
        self.running = running
    }

    /// Shuts both down gracefully and waits until they have stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// Stops both at once, abandoning requests in flight (for tests that leave an origin request hanging).
    func cancel() async {
        running.cancel()
        _ = await running.result
    }

    /// A signed (or, without keys, `insecure`) processing path for `source` in the plain form.
    func plainPath(options: String = "", source: String, extension ext: String? = nil) -> String {
        let tail = "plain/" + DemoPage.percentEncoded(source) + (ext.map { "@" + $0 } ?? "")
        return server.service.signer.signedPath("/" + (options.isEmpty ? "" : options + "/") + tail)
    }

    /// The width and height of the image this server answers for `path`, which must answer 200.
    func answeredSize(_ path: String) async throws -> (Int, Int) {
        let reply = try await HTTPClient.get(baseURL + path)
        #expect(reply.status == 200, "\(path)")
        let image = try Fixtures.decode(reply.body)
        return (image.width, image.height)
    }

    /// A signed processing path for `source` in the base64 form.
    func encodedPath(options: String = "", source: String, extension ext: String? = nil) -> String {
        let tail = Base64URL.encode(Array(source.utf8)) + (ext.map { "." + $0 } ?? "")
        return server.service.signer.signedPath("/" + (options.isEmpty ? "" : options + "/") + tail)
    }
}

/// The port one server reports when it starts, for a test to wait on.
final class ReportedPort: Sendable {
    private let stream: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() { (stream, continuation) = AsyncStream<Int>.makeStream() }

    func report(_ port: Int) { continuation.yield(port) }

    func wait() async throws -> Int {
        for await port in stream { return port }
        throw CancellationError()
    }
}

extension Fixtures {
    /// The standard files with `/held.jpg` added: a photo answered only once `gate` opens.
    static func files(holdingOn gate: AsyncGate) -> [String: StaticSourceServer.File] {
        var files = standardFiles
        files["/held.jpg"] = .init(
            data: files["/photo.jpg"]!.data, contentType: "image/jpeg", release: { await gate.wait() })
        return files
    }

    /// Download and request deadlines far past any test's wait, so a held source is answered because the
    /// test opened its gate, never because a deadline ran out on a slow machine.
    static func waitForHeldSources(_ configuration: inout ServerConfiguration) {
        configuration.downloadTimeout = 300
        configuration.requestTimeout = 300
    }
}
