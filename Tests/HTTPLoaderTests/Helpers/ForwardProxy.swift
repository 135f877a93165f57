import Foundation
import LoopbackHTTPServer
import Synchronization
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP forward proxy on 127.0.0.1 for tests: tunnels `CONNECT host:port` and forwards
/// absolute-form requests (`GET http://host:port/path`), one upstream connection per client
/// connection. It only ever connects to 127.x.y.z, so no test traffic leaves the machine, and it logs
/// every request line it is asked for.
final class ForwardProxy: Sendable {
    /// Guards the request log.
    private let log = Locked([String]())
    /// The socket, its accept loop and the connection threads; upstream sockets are tracked there too.
    private let listener: LoopbackListener
    var port: UInt16 { listener.port }

    /// `http://127.0.0.1:<port>`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The request lines received so far ("CONNECT 127.0.0.1:8080 HTTP/1.1").
    var requestLines: [String] { log.withLock { $0 } }

    init() throws {
        listener = try LoopbackListener(backlog: 128)
        listener.start { [self] client, _ in serve(client) }
    }

    deinit { shutdown() }

    func shutdown() { listener.shutdown() }

    /// Serves one client connection (the listener closes it afterwards).
    private func serve(_ client: Int32) {
        guard let (head, rest) = Self.readHead(client) else { return }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        log.withLock { $0.append(requestLine) }
        let parts = requestLine.split(separator: " ").map(String.init)
        guard parts.count == 3 else { return }
        if parts[0] == "CONNECT" {
            guard let upstream = connectUpstream(parts[1]) else {
                Self.send(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
                return
            }
            defer { listener.close(upstream) }
            Self.send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            if !rest.isEmpty { Self.send(upstream, rest) }
            Self.relay(client, upstream)
        } else {
            guard let target = URL(string: parts[1]), let host = target.host,
                let upstream = connectUpstream("\(host):\(target.port ?? 80)")
            else {
                Self.send(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
                return
            }
            defer { listener.close(upstream) }
            // Origin form upstream, and one request per connection: both sides close after it.
            let path = target.path.isEmpty ? "/" : target.path + (target.query.map { "?" + $0 } ?? "")
            let kept = lines.filter {
                let name = $0.prefix { $0 != ":" }.lowercased()
                return name != "connection" && name != "proxy-connection"
            }
            let forwarded = (["\(parts[0]) \(path) \(parts[2])"] + kept + ["Connection: close", "", ""]).joined(
                separator: "\r\n")
            Self.send(upstream, Array(forwarded.utf8) + rest)
            Self.relay(client, upstream)
        }
    }

    /// A connected socket to `authority` ("127.0.0.1:8080"), or nil when it is not on loopback or
    /// refuses.
    private func connectUpstream(_ authority: String) -> Int32? {
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...])
        else { return nil }
        let host = String(authority[..<colon])
        guard host.hasPrefix("127.") else { return nil }
        guard let fd = try? LoopbackSocket.connected(to: port, address: host) else { return nil }
        guard listener.track(fd) else { return nil }
        return fd
    }

    /// Copies bytes both ways until either side closes.
    private static func relay(_ a: Int32, _ b: Int32) {
        var descriptors = [
            pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 { if errno == EINTR { continue }; return }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let received = buffer.withUnsafeMutableBytes { recv(descriptor.fd, $0.baseAddress, $0.count, 0) }
                if received <= 0 { return }
                send(index == 0 ? b : a, Array(buffer[..<received]))
            }
        }
    }

    /// Reads a request head; returns it (without the blank line) and any bytes read past it.
    private static func readHead(_ fd: Int32) -> (String, [UInt8])? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while bytes.count < 64 * 1024 {
            if let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<($0 + 4)]) == separator }) {
                return (String(decoding: bytes[..<end], as: UTF8.self), Array(bytes[(end + 4)...]))
            }
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received <= 0 { return nil }
            bytes += chunk[..<received]
        }
        return nil
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { if errno == EINTR { continue }; return }
            offset += sent
        }
    }
}
