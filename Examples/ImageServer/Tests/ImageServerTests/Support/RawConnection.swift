import Foundation
import LoopbackHTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client socket to a loopback port, for tests that must misbehave at the byte level
/// (idle, drip a request head, never read the answer), which an HTTP client library will not do.
final class RawConnection: Sendable {
    let fd: Int32
    /// Whether `fd` is closed yet (by ``closeSocket()`` or deinit). It is closed once only: a second
    /// `close` of the number would close whatever socket of this process got it in between, such as
    /// URLSession's connection in a test running in parallel, which then fails with curl's "select/poll
    /// returned error" (POLLNVAL on its socket).
    private let isClosed = Mutex(false)

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive buffer first (a small
    /// window makes a client that does not read hold the server's writes back soon).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = try LoopbackSocket.connected(to: UInt16(port), receiveBuffer: receiveBuffer)
    }

    deinit { closeSocket() }

    /// Closes the connection now (the server sees it end); later calls and deinit do nothing.
    func closeSocket() {
        isClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }
    }

    /// Sends all of `text`; false once the server has closed the connection (EPIPE, ECONNRESET).
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool { LoopbackSocket.send(fd, bytes) }

    /// What reading finds within `timeout`: bytes, the end of the stream (the server closed), or nothing yet.
    enum ReadResult: Equatable {
        case bytes([UInt8])
        case closed
        case nothing
    }

    func read(timeout: Duration) -> ReadResult {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) > 0 else { return .nothing }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return .closed }
        return .bytes(Array(buffer[..<count]))
    }

    /// ``read(timeout:)`` on a Dispatch thread: a blocking wait on a cooperative thread would starve
    /// the server running in the same process (two such threads on a 2-core machine).
    func read(timeout: Duration) async -> ReadResult {
        await offThePool { self.read(timeout: timeout) }
    }

    /// ``readUntilClosed(limit:)`` on a Dispatch thread.
    func readUntilClosed(limit: Duration) async -> (bytes: [UInt8], closed: Bool) {
        await offThePool { self.readUntilClosed(limit: limit) }
    }

    /// Reads until the server closes the connection or `limit` passes; the bytes read and whether it closed.
    func readUntilClosed(limit: Duration) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        while ContinuousClock.now < deadline {
            switch read(timeout: .milliseconds(200)) {
            case .bytes(let bytes): received += bytes
            case .closed: return (received, true)
            case .nothing: continue
            }
        }
        return (received, false)
    }
}

/// Runs blocking `body` on a Dispatch worker thread and waits for it without holding a cooperative thread.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}
