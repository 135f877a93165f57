import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// How long a client connection may take at each stage before the server closes it, so that idle
/// keep-alive connections, slowloris heads, dripped bodies and clients that never read their answer
/// cost an fd for a bounded time only. imgproxy's names: `IMGPROXY_KEEP_ALIVE_TIMEOUT`,
/// `IMGPROXY_READ_REQUEST_TIMEOUT`, `IMGPROXY_WRITE_RESPONSE_TIMEOUT`.
public struct ClientDeadlines: Sendable, Equatable {
    /// Between requests on a kept-alive connection (and before the first one): Hummingbird's idle timeout.
    public var keepAlive: Duration
    /// From a request's first byte until all of it (head and body) has arrived.
    public var readRequest: Duration
    /// From the first byte of an answer written until the client has taken all of it.
    public var writeResponse: Duration
    /// After the server has closed its side (an error answer, `Connection: close`): how long the client
    /// has to read the answer and close its own side before the connection is closed outright.
    public var linger: Duration

    public init(
        keepAlive: Duration = .seconds(10), readRequest: Duration = .seconds(10),
        writeResponse: Duration = .seconds(10), linger: Duration = .seconds(2)
    ) {
        self.keepAlive = keepAlive
        self.readRequest = readRequest
        self.writeResponse = writeResponse
        self.linger = linger
    }
}

/// Events the request-part observer sends towards the front of the pipeline, where ``ClientDeadlineHandler``
/// sees raw bytes but cannot tell where a request ends.
enum RequestProgressEvent {
    /// The request's last part (its end) has been read.
    case requestReceived
}

/// Sits first in a client connection's pipeline (before the HTTP codec) and closes the connection when
/// a request is read too slowly, an answer is not taken in time, or the server's half-closed side is
/// not followed by the client's close in time (the FIN_WAIT2 leak of error answers).
final class ClientDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Why a connection was closed early, for the metric's label and the log.
    enum Reason: String, Sendable { case readRequest = "read_request", writeResponse = "write_response", linger }

    private let deadlines: ClientDeadlines
    private let onClose: @Sendable (Reason) -> Void
    /// Between a request's first byte and its end.
    private var isReadingRequest = false
    /// Writes handed to the socket and not yet taken by it.
    private var pendingWrites = 0
    private var readTimer: Scheduled<Void>?
    private var writeTimer: Scheduled<Void>?
    private var lingerTimer: Scheduled<Void>?

    init(deadlines: ClientDeadlines, onClose: @escaping @Sendable (Reason) -> Void) {
        self.deadlines = deadlines
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !isReadingRequest {
            isReadingRequest = true
            readTimer = schedule(context, after: deadlines.readRequest, reason: .readRequest)
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let event = event as? RequestProgressEvent, case .requestReceived = event {
            isReadingRequest = false
            readTimer?.cancel()
            readTimer = nil
            promise?.succeed()
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = promise ?? context.eventLoop.makePromise()
        pendingWrites += 1
        if writeTimer == nil { writeTimer = schedule(context, after: deadlines.writeResponse, reason: .writeResponse) }
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            pendingWrites -= 1
            if pendingWrites == 0 {
                writeTimer?.cancel()
                writeTimer = nil
            }
        }
        context.write(data, promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output, lingerTimer == nil {
            lingerTimer = schedule(context, after: deadlines.linger, reason: .linger)
        }
        context.close(mode: mode, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancelTimers() }

    private func cancelTimers() {
        for timer in [readTimer, writeTimer, lingerTimer] { timer?.cancel() }
        (readTimer, writeTimer, lingerTimer) = (nil, nil, nil)
    }

    private func schedule(_ context: ChannelHandlerContext, after delay: Duration, reason: Reason) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            guard context.channel.isActive else { return }
            onClose(reason)
            context.close(mode: .all, promise: nil)
        }
    }
}

/// Sits after the HTTP codec and tells ``ClientDeadlineHandler`` when a request has been read whole.
final class RequestProgressObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            context.triggerUserOutboundEvent(RequestProgressEvent.requestReceived, promise: nil)
        }
        context.fireChannelRead(data)
    }
}

/// Hummingbird's HTTP/1 channel with ``ClientDeadlineHandler`` in front of it and Hummingbird's own idle
/// timeout as the keep-alive timeout.
struct DeadlineHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let deadlines: ClientDeadlines
    let onClose: @Sendable (ClientDeadlineHandler.Reason) -> Void

    init(
        responder: @escaping HTTPChannelHandler.Responder, deadlines: ClientDeadlines,
        onClose: @escaping @Sendable (ClientDeadlineHandler.Reason) -> Void
    ) {
        self.deadlines = deadlines
        self.onClose = onClose
        inner = HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: [RequestProgressObserver()], idleTimeout: TimeAmount(deadlines.keepAlive)))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (deadlines, onClose) = (deadlines, onClose)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                ClientDeadlineHandler(deadlines: deadlines, onClose: onClose),
                position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the client deadlines of ``ClientDeadlines``.
    static func http1(
        deadlines: ClientDeadlines,
        onClose: @escaping @Sendable (ClientDeadlineHandler.Reason) -> Void
    ) -> HTTPServerBuilder {
        .init { responder in DeadlineHTTP1Channel(responder: responder, deadlines: deadlines, onClose: onClose) }
    }
}
