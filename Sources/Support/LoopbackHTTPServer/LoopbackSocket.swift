import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound on a loopback address: what a loopback server listens on, and what a test holds to
/// keep a port refusing connections.
public enum LoopbackSocket {
    /// A new socket bound to `address` (any 127.x.y.z on Linux) and `port`, or a free port when it is 0,
    /// with `SO_REUSEADDR` (so a port whose server just closed can be bound again through its connections
    /// in TIME_WAIT), and the port it got. The caller owns the descriptor.
    public static func bound(address: String = "127.0.0.1", port: UInt16 = 0) throws -> (descriptor: Int32, port: UInt16) {
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return (fd, UInt16(bigEndian: socketAddress.sin_port))
    }
}
