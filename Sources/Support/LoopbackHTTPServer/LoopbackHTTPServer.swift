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
        var connections: Set<Int32> = []
        var acceptedCount = 0
        var isShutDown = false
    }

    /// Guards the routes, the request log and counts, and the set of open connection sockets.
    private let state = Locked(State())
    /// Every thread (acceptor and connections) enters on start and leaves on exit; shutdown waits on it.
    private let threads = DispatchGroup()
    private let listener: Int32
    /// The port the server listens on.
    public let port: UInt16
    /// The IPv4 address the server listens on ("127.0.0.1" unless another was asked for).
    public let address: String

    /// Binds `address` (127.0.0.1 by default; any 127.x.y.z works on Linux, which gives tests a second
    /// loopback host) on a free port and starts accepting.
    public init(address: String = "127.0.0.1") throws {
        self.address = address
        let (fd, port) = try LoopbackSocket.bound(address: address)
        guard listen(fd, 1024) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        listener = fd
        self.port = port
        threads.enter()
        Thread { [self] in acceptLoop() }.start()
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
    public var acceptedConnectionCount: Int { state.withLock { $0.acceptedCount } }

    /// Stops accepting, closes every connection and waits for every server thread to end.
    /// Handlers blocked on something other than their connection must be released first.
    public func shutdown() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            return state.connections
        }
        guard let open else { return }
        // shutdown() wakes threads blocked in accept/recv/poll on these sockets; each closes its own.
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        threads.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { threads.leave() }
        while true {
            let fd = accept(listener, nil, nil)
            // Not inherited by child processes the tests start (nghttpd, the webimage command).
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let number: Int? = state.withLock { state in
                guard !state.isShutDown else { return nil }
                state.connections.insert(fd)
                state.acceptedCount += 1
                return state.acceptedCount
            }
            guard let number else { close(fd); return }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            threads.enter()
            Thread { [self] in serve(fd, number: number) }.start()
        }
    }

    private func serve(_ fd: Int32, number: Int) {
        defer {
            state.withLock { _ = $0.connections.remove(fd) }
            close(fd)
            threads.leave()
        }
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
