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
/// Its accept loop and connections run on threads of their own, never on Swift's cooperative pool:
/// they block in `accept`, `recv` and on the release, and the image server under test shares the pool.
final class OverflowingOrigin: Sendable {
    let port: Int
    /// The path whose answer is followed by `extra`.
    let overflowingPath: String
    private let listener: Int32
    private let files: [String: Data]
    private let extra: [UInt8]
    /// Signalled once by ``releaseExtra()`` (and by ``stop()``, so no connection thread outlives it).
    private let release = DispatchSemaphore(value: 0)

    private struct State {
        var requests: [(path: String, connection: Int)] = []
        var acceptedConnections = 0
        var extraSent = false
        var isStopped = false
        /// Connections open now, for ``stop()`` to shut down. A connection thread removes its descriptor
        /// under the lock before closing it, and ``stop()`` shuts descriptors down under the lock, so it
        /// never reaches a number that was closed and given to another socket of the process.
        var open: Set<Int32> = []
        /// Whether the accept loop has closed the listener (same rule as `open`).
        var listenerClosed = false
    }

    /// Guards the request record and the connections, written by the accept and connection threads.
    private let state = Mutex(State())

    /// The longest a connection waits for ``releaseExtra()``: a bound for a failed test, not a timing.
    static let releaseBound = DispatchTimeInterval.seconds(120)

    /// Listens on 127.0.0.1 (a port the system picks) serving `files` (`/a.png` → PNG bytes) as
    /// `image/png`; the answer of `overflowingPath` is followed by `extra` once released.
    init(files: [String: Data], overflowingPath: String, extra: [UInt8]) throws {
        self.files = files
        self.overflowingPath = overflowingPath
        self.extra = extra
        let (descriptor, port) = try LoopbackSocket.listening(backlog: 16)
        listener = descriptor
        self.port = Int(port)
        Thread { [self] in acceptLoop() }.start()
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

    var acceptedConnectionCount: Int { state.withLock { $0.acceptedConnections } }

    /// Stops accepting and shuts every connection down; their threads close their sockets and end. Call
    /// it once done: the threads hold the origin until then.
    func stop() {
        // shutdown, not close: a thread blocked in accept or recv on the descriptor wakes up, and the
        // descriptor is closed by its own thread, so its number cannot be reused under a blocked call.
        // Under the lock: a descriptor still in the state is still open (see `State.open`).
        state.withLock { state in
            state.isStopped = true
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
            for descriptor in state.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        release.signal()
    }

    private func acceptLoop() {
        defer {
            state.withLock { state in
                state.listenerClosed = true
                close(listener)
            }
        }
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let number: Int? = state.withLock { state in
                guard !state.isStopped else { return nil }
                state.acceptedConnections += 1
                state.open.insert(descriptor)
                return state.acceptedConnections
            }
            guard let number else {
                close(descriptor)
                return
            }
            Thread { [self] in serve(descriptor, number: number) }.start()
        }
    }

    /// Answers the requests of one connection in turn until the peer closes it or the origin stops.
    private func serve(_ descriptor: Int32, number: Int) {
        defer {
            state.withLock { state in
                state.open.remove(descriptor)
                close(descriptor)
            }
        }
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
