import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The bad origin of the fairness case, on 127.0.0.1 and its own port (so another host than nginx):
/// `/stall/…` reads the request and never answers; `/drip/…` sends a head promising 100 KB, then one
/// byte every ``dripInterval``. Thread per connection; every thread ends when its client hangs up.
final class SlowOrigin: Sendable {
    let port: UInt16
    private let listener: Int32
    /// Pace of the drip: 2 bytes per second, far under any sane low-speed floor.
    static let dripIntervalMicroseconds: UInt32 = 500_000
    static let dripDeclaredLength = 100 * 1024
    /// Set at stop, so the acceptor and the drips end.
    private let stopped = Atomic<Bool>(false)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 1024) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw BenchFailure(description: "slow origin: cannot listen") }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            if fd < 0 { if errno == EINTR { continue }; return }
            Thread { [self] in serve(fd) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
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
