import Foundation
import LoopbackHTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to a port on 127.0.0.1 that never listens: while it is open, every connection to
/// the port is refused, and no server of a test running in parallel can be given the port. (A port that
/// is merely free can be handed to the next `bind` to port 0 before the connection is tried.)
final class RefusingPort {
    let port: UInt16
    private var descriptor: Int32

    /// Binds `port`, or a free one when it is 0; works on a port a loopback server just released.
    init(port: UInt16 = 0) throws {
        (descriptor, self.port) = try LoopbackSocket.bound(port: port)
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
