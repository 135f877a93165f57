import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// TCP sockets on a loopback address: what a loopback server listens on, what a test holds to keep a port
/// refusing connections, and what a test uses to reach a server at the byte level.
public enum LoopbackSocket {
    /// A new socket bound to `address` (any 127.x.y.z on Linux) and `port`, or a free port when it is 0,
    /// with `SO_REUSEADDR` (so a port whose server just closed can be bound again through its connections
    /// in TIME_WAIT), and the port it got. The caller owns the descriptor.
    public static func bound(
        address: String = "127.0.0.1", port: UInt16 = 0
    ) throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        socketAddress.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return (fd, UInt16(bigEndian: socketAddress.sin_port))
    }

    /// A socket bound as ``bound(address:port:)`` does and listening with room for `backlog` pending
    /// connections, and its port: what an accept loop runs on. The caller owns the descriptor.
    public static func listening(
        address: String = "127.0.0.1", port: UInt16 = 0,
        backlog: Int32 = 1024
    ) throws -> (descriptor: Int32, port: UInt16) {
        let (fd, port) = try bound(address: address, port: port)
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return (fd, port)
    }

    /// A port nothing listens on right now, for a child process (redis-server, nginx, moto) to bind: the
    /// system's pick for a socket bound to port 0, then closed. Another bind may take it before the child
    /// does, so a launcher tries again when its child cannot bind.
    public static func freePort(address: String = "127.0.0.1") throws -> UInt16 {
        let (fd, port) = try bound(address: address)
        close(fd)
        return port
    }

    /// A new socket connected to `address`:`port`; the caller owns the descriptor. `receiveBuffer` shrinks
    /// the socket's receive buffer before connecting (a small window makes a client that does not read
    /// hold the server's writes back soon).
    public static func connected(
        to port: UInt16, address: String = "127.0.0.1",
        receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        socketAddress.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
        return fd
    }

    /// Whether something accepts connections on `address`:`port` now (the connection is closed at once):
    /// how a launcher sees a child process start listening.
    public static func accepts(_ port: UInt16, address: String = "127.0.0.1") -> Bool {
        guard let fd = try? connected(to: port, address: address) else { return false }
        close(fd)
        return true
    }

    /// Sends all of `bytes` on `fd`, without SIGPIPE; false once the peer has closed the connection.
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}
