import Foundation
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
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnectionError.system("socket", errno) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw RawConnectionError.system("connect", code)
        }
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
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// What reading finds within `timeout`: bytes, the end of the stream (the server closed), or nothing yet.
    enum ReadResult: Equatable {
        case bytes([UInt8])
        case closed
        case nothing
    }

    func read(timeout: Duration) -> ReadResult {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
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

enum RawConnectionError: Error {
    case system(String, Int32)
}

/// Server-side TCP sockets of `port` that an open file descriptor still holds, read from /proc/net/tcp:
/// every connection the server accepted and has not closed (a socket the kernel keeps alone, after the
/// server closed it, has no inode and is not counted).
func serverSocketsHeld(port: Int) -> Int {
    let portHex = String(format: ":%04X", port)
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9 else { continue }
            let (local, state, inode) = (fields[1], fields[3], fields[9])
            // 0A is LISTEN: the listening socket itself.
            if local.hasSuffix(portHex), state != "0A", inode != "0" { count += 1 }
        }
    }
    return count
}
