import Foundation
import LoopbackHTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback origin on raw sockets that sends past a response's `Content-Length`, which no HTTP server
/// library will do: on the keep-alive connection that asked for ``overflowingPath`` it answers that file
/// exactly, then, once the test calls ``releaseExtra()``, writes `extra` on the same connection in a
/// write of its own (a whole second response, or garbage) and sets ``extraWasSent``. Every other path
/// is answered with its own file. Records which connection each request came on.
///
/// Its connections run on threads of their own (a ``LoopbackListener``), never on Swift's cooperative
/// pool: they block in `recv` and on the release, and the image server under test shares the pool.
final class OverflowingOrigin: Sendable {
    var port: Int { Int(listener.port) }
    /// The path whose answer is followed by `extra`.
    let overflowingPath: String
    /// The socket, its accept loop and the connection threads.
    private let listener: LoopbackListener
    private let files: [String: Data]
    private let extra: [UInt8]
    /// Signalled once by ``releaseExtra()`` (and by ``stop()``, so no connection thread outlives it).
    private let release = DispatchSemaphore(value: 0)

    private struct State {
        var requests: [(path: String, connection: Int)] = []
        var extraSent = false
        var isStopped = false
    }

    /// Guards the request record and the stop flag, written by the connection threads.
    private let state = Mutex(State())

    /// The longest a connection waits for ``releaseExtra()``: a bound for a failed test, not a timing.
    static let releaseBound = DispatchTimeInterval.seconds(120)

    /// Listens on 127.0.0.1 (a port the system picks) serving `files` (`/a.png` → PNG bytes) as
    /// `image/png`; the answer of `overflowingPath` is followed by `extra` once released.
    init(files: [String: Data], overflowingPath: String, extra: [UInt8]) throws {
        self.files = files
        self.overflowingPath = overflowingPath
        self.extra = extra
        listener = try LoopbackListener(backlog: 16)
        listener.start { [self] descriptor, number in serve(descriptor, number: number) }
    }

    /// The URL of `path` on this origin.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Lets the connection that answered ``overflowingPath`` write its extra bytes.
    func releaseExtra() { release.signal() }

    var extraWasSent: Bool { state.withLock { $0.extraSent } }

    /// The connection (numbered from 1 in accept order) the first request for `path` came on.
    func connection(of path: String) -> Int? {
        state.withLock { $0.requests.first { $0.path == path }?.connection }
    }

    /// Requests that came on `connection`.
    func requests(on connection: Int) -> Int {
        state.withLock { $0.requests.count { $0.connection == connection } }
    }

    /// Requests for `path`, on any connection.
    func requests(for path: String) -> Int {
        state.withLock { $0.requests.count { $0.path == path } }
    }

    var acceptedConnectionCount: Int { listener.acceptedCount }

    /// Stops accepting and shuts every connection down; their threads end (the listener closes their
    /// sockets). Call it once done: the threads hold the origin until then.
    func stop() {
        state.withLock { $0.isStopped = true }
        listener.shutdown(waiting: false)
        release.signal()
    }

    /// Answers the requests of one connection in turn until the peer closes it or the origin stops.
    private func serve(_ descriptor: Int32, number: Int) {
        var pending: [UInt8] = []
        while let path = readRequestPath(descriptor, buffer: &pending) {
            state.withLock { $0.requests.append((path, number)) }
            guard LoopbackSocket.send(descriptor, Self.response(files[path])) else { return }
            guard path == overflowingPath else { continue }
            // The answer is complete and the loader has put the connection back in its pool; the extra
            // bytes go in a write of their own once the test says so.
            guard release.wait(timeout: .now() + Self.releaseBound) == .success,
                !state.withLock({ $0.isStopped })
            else { return }
            guard LoopbackSocket.send(descriptor, extra) else { return }
            state.withLock { $0.extraSent = true }
        }
    }

    /// The path of the next request head on `descriptor` (requests here have no body), or nil once
    /// the peer closed the connection or the origin stopped.
    private func readRequestPath(_ descriptor: Int32, buffer: inout [UInt8]) -> String? {
        let endOfHead = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: endOfHead) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                // "GET /a.png HTTP/1.1"
                let requestLine = head.split(separator: "\r\n").first ?? ""
                let parts = requestLine.split(separator: " ")
                return parts.count >= 2 ? String(parts[1]) : ""
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer += chunk[..<count]
        }
    }

    /// A 200 carrying `body` with its exact length, or a 404.
    static func response(_ body: Data?) -> [UInt8] {
        guard let body else { return Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8) }
        return Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            + Array(body)
    }
}
