import Foundation
import Synchronization
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port, for tests and demos that need a real
/// server in the same process, including a hostile one.
///
/// Each connection gets a thread; connections are kept alive between requests. Routes are closures
/// that write raw bytes, so a route can misbehave on purpose (drip, stall, lie about lengths):
///
/// ```swift
/// let server = try LoopbackHTTPServer()
/// server.route("/a.png") { _, connection in try connection.respond(body: pngBytes) }
/// let url = server.url("/a.png")
/// defer { server.shutdown() }
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// A route: answers one parsed request on its connection. Throwing closes the connection.
    public typealias Handler = @Sendable (HTTPServerRequest, HTTPServerConnection) throws -> Void

    /// Largest request head accepted; bigger ones close the connection.
    static let maxRequestHeadBytes = 64 * 1024

    private struct State {
        var exactRoutes: [String: Handler] = [:]
        var prefixRoutes: [(prefix: String, handler: Handler)] = []
        var counts: [String: Int] = [:]
        var log: [HTTPServerRequest] = []
    }

    /// Guards the routes and the request log and counts.
    private let state = Locked(State())
    /// The socket, its accept loop and the connection threads.
    private let listener: LoopbackListener
    /// The port the server listens on.
    public var port: UInt16 { listener.port }
    /// The IPv4 address the server listens on ("127.0.0.1" unless another was asked for).
    public var address: String { listener.address }

    /// Binds `address` (127.0.0.1 by default; any 127.x.y.z works on Linux, which gives tests a second
    /// loopback host) on a free port and starts accepting.
    public init(address: String = "127.0.0.1") throws {
        listener = try LoopbackListener(address: address, noDelay: true)
        // Holds the server until shutdown ends the accept loop, as a running server should be held.
        listener.start { [self] socket, number in serve(socket, number: number) }
    }

    deinit { shutdown() }

    /// `http://<address>:<port>` + `path`.
    public func url(_ path: String) -> URL { URL(string: "http://\(address):\(port)\(path)")! }

    /// Answers requests for exactly `path` (query ignored) with `handler`; replaces an earlier route.
    public func route(_ path: String, _ handler: @escaping Handler) {
        state.withLock { $0.exactRoutes[path] = handler }
    }

    /// Answers requests whose path starts with `prefix` (when no exact route matches).
    public func route(prefix: String, _ handler: @escaping Handler) {
        state.withLock { $0.prefixRoutes.append((prefix, handler)) }
    }

    /// Requests received for `path` so far.
    public func requestCount(for path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Requests received so far, in arrival order.
    public var requestLog: [HTTPServerRequest] { state.withLock { $0.log } }

    /// Requests received in all.
    public var totalRequestCount: Int { state.withLock { $0.log.count } }

    /// Connections accepted so far (open or closed).
    public var acceptedConnectionCount: Int { listener.acceptedCount }

    /// Stops accepting, closes every connection and waits for every server thread to end.
    /// Handlers blocked on something other than their connection must be released first.
    public func shutdown() { listener.shutdown() }

    /// Answers requests on one connection until it ends (the listener closes the socket).
    private func serve(_ fd: Int32, number: Int) {
        let connection = HTTPServerConnection(fd: fd, number: number)
        var buffer: [UInt8] = []
        while let request = readRequest(connection, buffer: &buffer) {
            let handler = state.withLock { state -> Handler? in
                state.counts[request.path, default: 0] += 1
                state.log.append(request)
                if let exact = state.exactRoutes[request.path] { return exact }
                return state.prefixRoutes.last { request.path.hasPrefix($0.prefix) }?.handler
            }
            connection.closeAfterResponse = request.wantsClose
            do {
                if let handler {
                    try handler(request, connection)
                } else {
                    try connection.respond(
                        status: 404, headers: [("Content-Type", "text/plain")], body: Array("not found".utf8))
                }
            } catch {
                return
            }
            if connection.closeAfterResponse { return }
        }
    }

    /// Reads the next request (head and Content-Length body); nil when the client closed or sent garbage.
    private func readRequest(_ connection: HTTPServerConnection, buffer: inout [UInt8]) -> HTTPServerRequest? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int? = nil
        while headEnd == nil {
            if let range = find(separator, in: buffer) {
                headEnd = range
                break
            }
            if buffer.count > Self.maxRequestHeadBytes { return nil }
            let more = connection.read(upTo: 16 * 1024)
            if more.isEmpty { return nil }
            buffer.append(contentsOf: more)
        }
        guard let end = headEnd, var request = HTTPServerRequest.parseHead(Array(buffer[..<end])) else { return nil }
        buffer.removeFirst(end + separator.count)
        let bodyLength = Int(request.headers["content-length"] ?? "0") ?? 0
        while buffer.count < bodyLength {
            let more = connection.read(upTo: 16 * 1024)
            if more.isEmpty { return nil }
            buffer.append(contentsOf: more)
        }
        request.body = Array(buffer[..<bodyLength])
        buffer.removeFirst(bodyLength)
        return request
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}
