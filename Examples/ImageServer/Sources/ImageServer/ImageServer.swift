import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import WebImage

/// The imgproxy-compatible image server: processing URLs, `/health`, `/metrics` and, in demo mode,
/// `/demo`. Make one from a ``ServerConfiguration`` and ``run()`` it, or put ``application(onServerRunning:)``
/// in a `ServiceGroup` of your own (as the tests do).
public final class ImageServer: Sendable {
    public let configuration: ServerConfiguration
    let service: ImageService
    let metrics: ServerMetrics
    let logger: Logger

    /// Prepares the server; throws when the configuration names files that cannot be used (the result
    /// cache directory, the watermark).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "webimage-server")) throws {
        // The framework's first use registers every built-in coder (and any registered later, such as an
        // AVIF coder, is seen at request time through the same manager).
        _ = WebImage.shared
        self.configuration = configuration
        self.logger = logger
        metrics = ServerMetrics()
        service = try ImageService(configuration: configuration, coders: .shared, metrics: metrics, logger: logger)
        if !configuration.signingKeys.isEmpty {
            logger.info("signatures required", metadata: ["keys": "\(configuration.signingKeys.count)"])
        } else {
            logger.warning("no IMGPROXY_KEY/IMGPROXY_SALT: URL signatures are not checked")
        }
        if configuration.allowsPrivateSources {
            logger.warning("source addresses in private networks allowed (loopback and link-local stay refused)")
        }
    }

    /// The Hummingbird application serving this server; `onServerRunning` gets the bound port.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> Application<CallbackResponder<BasicRequestContext>> {
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in await respond(to: request) }
        return Application(responder: responder,
                           configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                                   serverName: "webimage-server"),
                           onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then stops accepting connections and finishes the requests in flight.
    public func run(additionalServices: [any Service] = [],
                    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: additionalServices + [application(onServerRunning: onServerRunning)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Routes one request.
    func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.response(ImageService.failureAnswer(ServerFailure(status: 405, "only GET and HEAD")))
        }
        let target = request.uri.string
        switch request.uri.path {
        case "/health":
            return Self.response(.init(status: 200, headers: [("Content-Type", "text/plain")], body: Data("ok\n".utf8)))
        case "/metrics":
            return Self.response(.init(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                                       body: Data(metrics.exposition().utf8)))
        case "/demo", "/demo/":
            guard let demo = configuration.demo else { break }
            let page = DemoPage(demo: demo, signer: service.signer)
            return Self.response(.init(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                                       body: Data(page.html().utf8)))
        default:
            break
        }
        let answer = await service.answer(target: target, accept: request.headers[.accept],
                                          ifNoneMatch: request.headers[.ifNoneMatch])
        return Self.response(answer)
    }

    static func response(_ answer: ImageService.Answer) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
