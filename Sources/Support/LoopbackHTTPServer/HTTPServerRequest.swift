import Foundation

/// One request as ``LoopbackHTTPServer`` parsed it.
public struct HTTPServerRequest: Sendable {
    /// The method, as sent ("GET").
    public var method: String
    /// The path without the query ("/images/1.png").
    public var path: String
    /// The query string without the "?", empty when there is none.
    public var query: String
    /// Header fields, names lowercased; repeated fields joined with ", ".
    public var headers: [String: String]
    /// The body (read by Content-Length; empty for most image requests).
    public var body: [UInt8]

    /// Parses a request head (request line and header lines, without the blank line).
    /// Returns nil when the request line is malformed.
    static func parseHead(_ head: [UInt8]) -> HTTPServerRequest? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n").makeIterator()
        guard let requestLine = lines.next() else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        let target = String(parts[1])
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        var headers: [String: String] = [:]
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let query = pathEnd == target.endIndex ? "" : String(target[target.index(after: pathEnd)...])
        return HTTPServerRequest(
            method: String(parts[0]), path: String(target[..<pathEnd]), query: query,
            headers: headers, body: [])
    }

    /// Whether the client asked to close the connection after this request.
    public var wantsClose: Bool { headers["connection"]?.lowercased() == "close" }
}
