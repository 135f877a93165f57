import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import ServiceLifecycle
import WebImage
import WebImageSVGCoder

/// The imgproxy-compatible image server: processing URLs, `/health`, `/metrics` (or on a port of its
/// own, ``metricsApplication(onServerRunning:)``) and, in demo mode, `/demo`. Make one from a ``ServerConfiguration`` and ``run()`` it, or put ``application(onServerRunning:)``
/// in a `ServiceGroup` of your own (as the tests do).
public final class ImageServer: Sendable {
    public let configuration: ServerConfiguration
    let service: ImageService
    let metrics: ServerMetrics
    let logger: Logger
    /// Watches the Redis tier of the result cache, when there is one.
    let redisMonitor: RedisTierMonitor?

    /// Prepares the server; throws when the configuration names files that cannot be used (the result
    /// cache directory, the watermark).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "webimage-server")) throws {
        // Every built-in coder is registered (and any registered later, such as an
        // AVIF coder, is seen at request time through the same manager).
        WebImage.registerBuiltInCoders()
        _ = Self.registersExtraCoders
        self.configuration = configuration
        self.logger = logger
        metrics = ServerMetrics()
        let service = try ImageService(configuration: configuration, coders: .shared, metrics: metrics, logger: logger)
        self.service = service
        let metrics = self.metrics
        redisMonitor = service.resultCache.redis.map { RedisTierMonitor(redis: $0, metrics: metrics, logger: logger) }
        if !configuration.signingKeys.isEmpty {
            logger.info("signatures required", metadata: ["keys": "\(configuration.signingKeys.count)"])
        } else {
            logger.warning("no IMGPROXY_KEY/IMGPROXY_SALT: URL signatures are not checked")
        }
        if configuration.allowsPrivateSources {
            logger.warning("source addresses in private networks allowed")
        }
        if configuration.allowsLinkLocalSources {
            logger.warning("link-local source addresses allowed (cloud metadata services answer there)")
        }
    }

    /// Registers the coders the umbrella module leaves out (SVG, which links librsvg), once per process.
    private static let registersExtraCoders: Void = SVGCoder.register()

    /// Makes this server's Prometheus registry the process's swift-metrics backend, so that what the
    /// framework records (Hummingbird's request metrics, the loader's and caches' metrics) is served on
    /// `/metrics` beside the server's own. Once per process; the executable calls it, tests do not.
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(metrics.factory)
    }

    /// What runs beside the HTTP server: the memory trimmer and, with a Redis tier, its monitor.
    public func backgroundServices() -> [any Service] {
        [MemoryTrimmer()] + (redisMonitor.map { [$0] } ?? [])
    }

    /// The Hummingbird application serving this server; `onServerRunning` gets the bound port.
    public func application(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        let metrics = self.metrics
        return Application(
            router: router(),
            server: .http1(
                deadlines: configuration.clientDeadlines,
                onClose: { reason in metrics.countClientTimeout(reason.rawValue) }),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "webimage-server",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxClients, logger: logger)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The routes, under `IMGPROXY_PATH_PREFIX` when set: `/health` (and `IMGPROXY_HEALTH_CHECK_PATH`),
    /// `/metrics`, `/demo` and every other path a processing URL, for GET and HEAD; other methods get 405
    /// (with `IMGPROXY_ALLOW_ORIGIN`, Hummingbird's CORS middleware answers a browser's OPTIONS preflight). Requests are logged
    /// (debug), counted and traced by Hummingbird's middleware; image requests also by the service
    /// (status, format, bytes, time).
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        if let allowOrigin = configuration.allowOrigin {
            // Hummingbird's CORS middleware: the header on every answer to a browser, preflights answered.
            router.add(
                middleware: CORSMiddleware(
                    allowOrigin: .custom(allowOrigin), allowMethods: [.get, .head, .options],
                    maxAge: .seconds(86_400)))
        }
        router.add(middleware: MethodGuard())
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: TracingMiddleware())
        let prefix = configuration.pathPrefix
        var healthPaths = [prefix + "/health"]
        if let custom = configuration.healthCheckPath, custom != "/health" { healthPaths.append(prefix + custom) }
        for method in [HTTPRequest.Method.get, .head] {
            for path in healthPaths {
                router.on(RouterPath(path), method: method) { _, _ in
                    Self.response(
                        .init(status: 200, headers: [("Content-Type", "text/plain")], body: Data("ok\n".utf8)))
                }
            }
            if configuration.metricsBind == nil {
                router.on(RouterPath(prefix + "/metrics"), method: method) { [self] _, _ in metricsResponse() }
            }
            router.on(RouterPath(prefix + "/demo"), method: method) { [self] _, _ in try demoPage() }
            // The router's tree does not backtrack: under a prefix, its own catch-all.
            for catchAll in prefix.isEmpty ? ["**"] : ["**", prefix + "/**"] {
                router.on(RouterPath(catchAll), method: method) { [self] request, _ in
                    let target = request.uri.string
                    guard target.hasPrefix(prefix + "/") else {
                        throw ServerFailure(status: 404, "not a processing URL: outside \(prefix)")
                    }
                    let headers = request.headers
                    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
                    // IMGPROXY_SECRET: imgproxy's 403 for a missing or wrong bearer token.
                    if let secret = configuration.secret, !Self.matches(headers[.authorization], bearer: secret) {
                        throw ServerFailure(status: 403, "invalid secret")
                    }
                    let hints = ClientHints(
                        dpr: header("Sec-CH-DPR") ?? header("DPR"), width: header("Sec-CH-Width") ?? header("Width"))
                    return Self.response(
                        await service.answer(
                            target: String(target.dropFirst(prefix.count)),
                            accept: headers[.accept],
                            ifNoneMatch: headers[.ifNoneMatch],
                            ifModifiedSince: headers[.ifModifiedSince], hints: hints))
                }
            }
        }
        return router
    }

    /// The Prometheus exposition of every metric, held bytes and Redis counters brought up to date first.
    private func metricsResponse() -> Response {
        metrics.recordHeldBytes(resultCache: service.resultCache.memoryBytes, sources: service.fetcher.heldBytes)
        redisMonitor?.exportCounters()
        return Self.response(
            .init(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Data(metrics.exposition().utf8)))
    }

    /// With `IMGPROXY_PROMETHEUS_BIND`, the application serving `/metrics` (GET and HEAD) on that address
    /// alone; nil without it. `onServerRunning` gets its bound port.
    public func metricsApplication(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> (any Service)? {
        guard let bind = configuration.metricsBind else { return nil }
        let router = Router()
        router.add(middleware: MethodGuard())
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/metrics", method: method) { [self] _, _ in metricsResponse() }
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(bind.host, port: bind.port),
                serverName: "webimage-server-metrics"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    private func demoPage() throws -> Response {
        guard let demo = configuration.demo else {
            throw ServerFailure(status: 404, "not a processing URL: the demo page is off")
        }
        let page = DemoPage(demo: demo, signer: service.signer)
        return Self.response(
            .init(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Data(page.html().utf8)))
    }

    /// Runs until SIGTERM or SIGINT, then stops accepting connections and finishes the requests in flight.
    public func run(
        additionalServices: [any Service] = [],
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: additionalServices + backgroundServices() + (metricsApplication().map { [$0] } ?? [])
                    + [application(onServerRunning: onServerRunning)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Whether `authorization` is `Bearer SECRET`, compared in time independent of where they differ,
    /// so the token cannot be guessed byte by byte from answer times.
    static func matches(_ authorization: String?, bearer secret: String) -> Bool {
        let given = Array((authorization ?? "").utf8), expected = Array("Bearer \(secret)".utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    static func response(_ answer: ImageService.Answer) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}

/// Answers 405 to methods other than GET and HEAD, before any route.
struct MethodGuard<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            throw ServerFailure(status: 405, "only GET and HEAD")
        }
        return try await next(request, context)
    }
}
