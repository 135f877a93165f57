import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The client connection a route handler answers on. Handlers write raw bytes, so they can send
/// anything: well-formed responses through ``respond(status:headers:body:)`` or faults (short bodies,
/// wrong lengths, stalls) byte by byte.
///
/// Used only by the connection's own thread.
public final class HTTPServerConnection {
    /// Raised when the client has gone away (a write failed, or a wait saw the peer close).
    public struct Closed: Error {}

    let fd: Int32
    /// Which connection this is: the server's n-th accepted one, from 1. Tells a test whether two
    /// requests came on one connection.
    public let number: Int
    /// Set by a handler that wants the connection closed after its response instead of kept alive.
    public var closeAfterResponse = false

    /// Linux's POLLRDHUP (the peer closed its end); Glibc exports it only under _GNU_SOURCE.
    static let peerHangUp: Int16 = 0x2000

    init(fd: Int32, number: Int) {
        self.fd = fd
        self.number = number
    }

    /// Writes `bytes` completely, or throws ``Closed`` when the client is gone.
    public func write(_ bytes: [UInt8]) throws(Closed) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a vanished client must not kill the process with SIGPIPE.
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Closed()
            }
            offset += sent
        }
    }

    /// Writes `text` as UTF-8.
    public func write(_ text: String) throws(Closed) { try write(Array(text.utf8)) }

    /// Writes a status line and `headers` (in order), then the blank line. No Content-Length is added.
    public func writeHead(status: Int, reason: String? = nil, headers: [(String, String)]) throws(Closed) {
        var head = "HTTP/1.1 \(status) \(reason ?? Self.reason(for: status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(head)
    }

    /// Writes a complete response with a correct Content-Length.
    public func respond(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) throws(Closed) {
        var all = headers
        all.append(("Content-Length", "\(body.count)"))
        if closeAfterResponse { all.append(("Connection", "close")) }
        try writeHead(status: status, headers: all)
        try write(body)
    }

    /// Writes one chunk of a `Transfer-Encoding: chunked` body; an empty chunk ends the body.
    public func writeChunk(_ bytes: [UInt8]) throws(Closed) {
        try write(String(bytes.count, radix: 16) + "\r\n")
        try write(bytes)
        try write("\r\n")
    }

    /// Waits up to `duration` (a fault's pacing, not synchronisation; counted in whole milliseconds,
    /// rounded down), returning early with ``Closed`` when the client closes the connection or the
    /// server shuts down.
    public func pause(for duration: Duration) throws(Closed) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN) | Self.peerHangUp, revents: 0)
        let (seconds, attoseconds) = duration.components
        let milliseconds = max(0, min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        let ready = poll(&descriptor, 1, Int32(milliseconds))
        if ready > 0 { throw Closed() }
    }

    /// Holds the connection open without sending anything until the client closes it or the server
    /// shuts down: a server that stalls forever.
    public func stallUntilClientCloses() {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN) | Self.peerHangUp, revents: 0)
        while poll(&descriptor, 1, -1) < 0 && errno == EINTR {}
    }

    /// Reads up to `count` bytes; an empty result means the peer closed.
    func read(upTo count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if received < 0 && errno == EINTR { continue }
            return received > 0 ? Array(buffer[..<received]) : []
        }
    }

    static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
