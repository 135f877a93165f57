import Foundation
import LoopbackHTTPServer
import Synchronization
import WebImageCore

/// One resource on a loopback server that serves byte ranges the way RFC 9110 says (`Range:
/// bytes=N-`, honoured only while `If-Range` still matches the current ETag or Last-Modified), and
/// that can misbehave on demand: cut a response midway, ignore ranges, refuse them with 416, or
/// change the resource between requests.
final class ResumableOrigin: Sendable {
    /// How the origin treats a `Range` header.
    enum RangeSupport: Sendable {
        /// Honours it (when If-Range matches) with a 206.
        case honours
        /// Answers 200 with the whole body, as servers without range support do.
        case ignores
        /// Answers 416, as if the range were past the end.
        case refuses
        /// Answers 206 with the whole body (`bytes 0-...`), a range nobody asked for.
        case sendsTheWrongRange
    }

    struct Resource: Sendable {
        var body: [UInt8]
        var etag: String?
        var lastModified: String?
        /// The `Date` header sent; nil sends none.
        var date: String?
        /// Send 200 bodies chunked, without Content-Length.
        var chunked = false
    }

    /// One request as the origin saw it and the status it answered.
    struct Exchange: Sendable {
        var range: String?
        var ifRange: String?
        var status: Int
    }

    private struct State {
        var resource: Resource
        var support = RangeSupport.honours
        /// Bytes of body to send before closing, for the next responses in order; empty sends whole bodies.
        var cuts: [Int] = []
        /// At a cut, hold the connection silent until the client leaves instead of closing it.
        var stallsAtCut = false
        var exchanges: [Exchange] = []
    }

    /// Guards the resource, the fault plan and the log of exchanges (route handlers run on server threads).
    private let state: Locked<State>

    init(_ resource: Resource) { state = Locked(State(resource: resource)) }

    /// Serves this resource at `path` on `server`.
    func install(on server: LoopbackHTTPServer, at path: String) {
        server.route(path) { [self] request, connection in try answer(request, connection) }
    }

    /// The next responses send only the first `bytes[i]` body bytes each, then close the connection.
    func cutNextResponses(after bytes: [Int]) { state.withLock { $0.cuts = bytes } }
    /// Whether a cut response stalls (until the client leaves) rather than closing at once.
    var stallsAtCut: Bool {
        get { state.withLock { $0.stallsAtCut } }
        set { state.withLock { $0.stallsAtCut = newValue } }
    }
    var rangeSupport: RangeSupport {
        get { state.withLock { $0.support } }
        set { state.withLock { $0.support = newValue } }
    }
    var resource: Resource {
        get { state.withLock { $0.resource } }
        set { state.withLock { $0.resource = newValue } }
    }
    var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// Deterministic bytes that repeat nowhere near as often as a duplicated prefix would show.
    static func bytes(count: Int, seed: UInt32) -> [UInt8] {
        var x = seed | 1
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            return UInt8(truncatingIfNeeded: x)
        }
    }

    private func answer(_ request: HTTPServerRequest, _ connection: HTTPServerConnection) throws {
        let range = request.headers["range"]
        let ifRange = request.headers["if-range"]
        let (resource, support, cut, stalls): (Resource, RangeSupport, Int?, Bool) = state.withLock { state in
            (state.resource, state.support, state.cuts.isEmpty ? nil : state.cuts.removeFirst(), state.stallsAtCut)
        }
        let count = resource.body.count
        var start = 0
        var status = 200
        if let range, let first = Self.firstByte(range) {
            let validatorMatches = ifRange == nil || ifRange == resource.etag || ifRange == resource.lastModified
            switch support {
            case .honours where validatorMatches && first < count:
                start = first
                status = 206
            case .refuses:
                status = 416
            case .sendsTheWrongRange:
                status = 206
            default:
                break
            }
        }
        state.withLock { $0.exchanges.append(Exchange(range: range, ifRange: ifRange, status: status)) }
        var headers: [(String, String)] = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        if let etag = resource.etag { headers.append(("ETag", etag)) }
        if let lastModified = resource.lastModified { headers.append(("Last-Modified", lastModified)) }
        if let date = resource.date { headers.append(("Date", date)) }
        if status == 416 {
            try connection.respond(status: 416, headers: headers + [("Content-Range", "bytes */\(count)")])
            return
        }
        if status == 206 { headers.append(("Content-Range", "bytes \(start)-\(count - 1)/\(count)")) }
        let rest = Array(resource.body[start...])
        let sent = cut.map { Array(rest.prefix($0)) } ?? rest
        if resource.chunked && status == 200 {
            try connection.writeHead(status: status, reason: nil, headers: headers + [("Transfer-Encoding", "chunked")])
            try connection.writeChunk(sent)
            if cut == nil { try connection.writeChunk([]) }
        } else {
            try connection.writeHead(
                status: status, reason: status == 206 ? "Partial Content" : nil,
                headers: headers + [("Content-Length", "\(rest.count)")])
            try connection.write(sent)
        }
        if cut != nil {
            if stalls { connection.stallUntilClientCloses() }
            connection.closeAfterResponse = true
        }
    }

    /// N of `bytes=N-`; nil for any other range form.
    private static func firstByte(_ range: String) -> Int? {
        guard range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int(range.dropFirst("bytes=".count).dropLast())
    }

    /// `date` as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
