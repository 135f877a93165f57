import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to a port on 127.0.0.1 that never listens: while it is open, every connection to
/// the port is refused, and no server of a test running in parallel can be given the port. (A port that
/// is merely free can be handed to the next `bind` to port 0 before the connection is tried.)
final class RefusingPort {
    let port: UInt16
    private var descriptor: Int32

    /// Binds `port`, or a free one when it is 0. Works on a port a loopback server just released:
    /// `SO_REUSEADDR` lets the bind through the server's connections still in TIME_WAIT.
    init(port: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        descriptor = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// `http://127.0.0.1:<port>` + `path`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Gives the port up; also done on release, but calling it at the end of a test keeps the port
    /// held until then.
    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
