import Foundation

/// `IMGPROXY_ALLOWED_SOURCES`: a source URL is allowed when it starts with one of the patterns; `*` in a
/// pattern matches any run of characters except `/`, `.` and `:` (one label of a host name, so
/// `https://*.example.com/` allows `https://cdn.example.com/` but not `https://evil.com/.example.com/`).
/// No patterns: every source is allowed (the address guard still applies).
struct SourceAllowList: Sendable {
    let patterns: [[UInt8]]

    init(_ patterns: [String]) { self.patterns = patterns.map { Array($0.utf8) } }

    func allows(_ url: URL) -> Bool {
        if patterns.isEmpty { return true }
        let text = Array(url.absoluteString.utf8)
        return patterns.contains { Self.prefixMatches($0[...], text[...]) }
    }

    /// Whether `pattern` matches a prefix of `text`.
    private static func prefixMatches(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        guard let head = pattern.first else { return true }
        if head == UInt8(ascii: "*") {
            let rest = pattern.dropFirst()
            var candidate = text
            while true {
                if prefixMatches(rest, candidate) { return true }
                guard let next = candidate.first, !wildcardStops.contains(next) else { return false }
                candidate = candidate.dropFirst()
            }
        }
        guard let first = text.first, first == head else { return false }
        return prefixMatches(pattern.dropFirst(), text.dropFirst())
    }

    private static let wildcardStops: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: ":")]
}
