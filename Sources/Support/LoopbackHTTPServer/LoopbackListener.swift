import Foundation
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on a loopback address whose connections each get a thread of their own: the accept
/// loop that test servers (``LoopbackHTTPServer``, a proxy, a hostile origin) share.
///
/// Threads, not Swift's cooperative pool: a connection blocks in `recv` or on a test's gate, and the code
/// under test may share the pool. ``shutdown(waiting:)`` wakes every blocked thread by shutting its socket
/// down; each socket is closed by the thread that owns it, under the same lock, so a number is never shut
/// down or closed after the system has given it to another socket of the process (a parallel test's).
public final class LoopbackListener: Sendable {
    /// What runs for each accepted connection, on its own thread: the socket and the connection's number
    /// (1 for the first accepted). The listener closes the socket when it returns.
    public typealias Connection = @Sendable (_ socket: Int32, _ number: Int) -> Void

    private struct State {
        /// Sockets open now (accepted, or added by ``track(_:)``), for shutdown to wake.
        var open: Set<Int32> = []
        var acceptedCount = 0
        var isShutDown = false
        /// Whether the accept loop has closed the listening socket (the same rule as `open`).
        var listenerClosed = false
    }

    /// Guards the open sockets, the count and the shutdown flag; sockets are shut down and closed under it.
    /// (`Locked`: a pthread mutex under ThreadSanitizer, which does not see `Mutex`'s futex.)
    private let state = Locked(State())
    /// The accept loop and every connection thread enter on start and leave on exit.
    private let threads = DispatchGroup()
    private let listener: Int32
    private let noDelay: Bool
    /// The port the listener is bound to.
    public let port: UInt16
    /// The IPv4 address it listens on.
    public let address: String

    /// Binds `address` (127.0.0.1 by default) on a port the system picks and listens; nothing is accepted
    /// until ``start(_:)``. `noDelay` sets `TCP_NODELAY` on every accepted socket.
    public init(address: String = "127.0.0.1", backlog: Int32 = 1024, noDelay: Bool = false) throws {
        (listener, port) = try LoopbackSocket.listening(address: address, backlog: backlog)
        self.address = address
        self.noDelay = noDelay
    }

    deinit { shutdown(waiting: false) }

    /// Connections accepted so far (open or closed).
    public var acceptedCount: Int { state.withLock { $0.acceptedCount } }

    /// Starts the accept loop; each connection runs `connection` on a thread of its own. Call it once.
    public func start(_ connection: @escaping Connection) {
        threads.enter()
        Thread { [self] in acceptLoop(connection) }.start()
    }

    /// Adds a socket the caller opened (say, a proxy's upstream) to those shutdown wakes; false, and the
    /// socket closed, when the listener is already shut down. Close it with ``close(_:)``.
    public func track(_ socket: Int32) -> Bool {
        state.withLock { state in
            guard !state.isShutDown else {
                Glibc.close(socket)
                return false
            }
            state.open.insert(socket)
            return true
        }
    }

    /// Closes a socket of ``track(_:)`` (under the lock, so shutdown never reaches its reused number).
    public func close(_ socket: Int32) {
        state.withLock { state in
            state.open.remove(socket)
            Glibc.close(socket)
        }
    }

    /// Stops accepting and shuts every open socket down, which wakes the threads blocked on them; with
    /// `waiting`, returns once every thread has ended. A connection blocked on something else (a gate)
    /// must be released first, or `waiting` waits for it.
    public func shutdown(waiting: Bool = true) {
        let first = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            state.isShutDown = true
            if !state.listenerClosed { Glibc.shutdown(listener, Int32(SHUT_RDWR)) }
            for socket in state.open { Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
            return true
        }
        if first && waiting { threads.wait() }
    }

    private func acceptLoop(_ connection: @escaping Connection) {
        defer {
            state.withLock { state in
                state.listenerClosed = true
                Glibc.close(listener)
            }
            threads.leave()
        }
        while true {
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            // Not inherited by child processes the tests start (nghttpd, the webimage command).
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            let number: Int? = state.withLock { state in
                guard !state.isShutDown else { return nil }
                state.open.insert(socket)
                state.acceptedCount += 1
                return state.acceptedCount
            }
            guard let number else {
                Glibc.close(socket)
                return
            }
            if noDelay {
                var yes: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
            threads.enter()
            Thread { [self] in
                connection(socket, number)
                close(socket)
                threads.leave()
            }.start()
        }
    }
}
