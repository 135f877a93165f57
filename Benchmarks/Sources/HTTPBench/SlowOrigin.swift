import Foundation
import LoopbackHTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The bad origin of the fairness case, on 127.0.0.1 and its own port (so another host than nginx):
/// `/stall/…` reads the request and never answers; `/drip/…` sends a head promising 100 KB, then one
/// byte every ``dripInterval``. Thread per connection (a `LoopbackListener`); every thread ends when its
/// client hangs up.
final class SlowOrigin: Sendable {
    var port: UInt16 { listener.port }
    /// The socket, its accept loop and the connection threads.
    private let listener: LoopbackListener
    /// Pace of the drip: 2 bytes per second, far under any sane low-speed floor.
    static let dripIntervalMicroseconds: UInt32 = 500_000
    static let dripDeclaredLength = 100 * 1024
    /// Set at stop, so the acceptor and the drips end.
    private let stopped = Atomic<Bool>(false)

    init() throws {
        do {
            listener = try LoopbackListener()
        } catch {
            throw BenchFailure(description: "slow origin: cannot listen: \(error)")
        }
        listener.start { [self] socket, _ in serve(socket) }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        listener.shutdown(waiting: false)
    }

    /// Serves one connection (the listener closes it afterwards).
    private func serve(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var head = [UInt8]()
        while !head.contains(13) || String(decoding: head, as: UTF8.self).range(of: "\r\n\r\n") == nil {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received <= 0 { return }
            head += buffer[..<received]
        }
        let isDrip = String(decoding: head.prefix(64), as: UTF8.self).contains(" /drip/")
        if isDrip {
            let response =
                "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(Self.dripDeclaredLength)\r\n\r\n"
            guard write(fd, Array(response.utf8)) else { return }
            for _ in 0..<Self.dripDeclaredLength where !stopped.load(ordering: .relaxed) {
                guard write(fd, [0x41]) else { return }
                usleep(Self.dripIntervalMicroseconds)
            }
        } else {
            // Wait for the client to give up (recv returns 0 or fails when it closes).
            while !stopped.load(ordering: .relaxed) {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 1000) > 0 { return }
            }
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
