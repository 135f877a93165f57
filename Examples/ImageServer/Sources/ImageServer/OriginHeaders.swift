import Foundation
import WebImage

/// The headers of a source's answer that shape the server's own answer: `Last-Modified` (sent back with
/// `IMGPROXY_USE_LAST_MODIFIED`), `Cache-Control` and `Expires` (with `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
/// Kept with each encoded result, so a cached answer carries its source's.
struct OriginHeaders: Sendable, Equatable {
    var lastModified: String?
    var cacheControl: String?
    var expires: String?

    /// The names, as stored with cached results.
    static let names = ["Last-Modified", "Cache-Control", "Expires"]

    init(lastModified: String? = nil, cacheControl: String? = nil, expires: String? = nil) {
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expires = expires
    }

    /// Those of `response` (names matched without regard to case).
    init(_ response: ImageResponse?) {
        func value(_ name: String) -> String? {
            response?.headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        self.init(lastModified: value("Last-Modified"), cacheControl: value("Cache-Control"), expires: value("Expires"))
    }

    var isEmpty: Bool { lastModified == nil && cacheControl == nil && expires == nil }

    /// `Name: value` lines of the present headers.
    var lines: [String] {
        zip(Self.names, [lastModified, cacheControl, expires]).compactMap { name, value in
            value.map { "\(name): \($0)" }
        }
    }

    /// Headers from `lines` as ``lines`` writes them; others are ignored.
    init(lines: some Sequence<Substring>) {
        self.init()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon] {
            case "Last-Modified": lastModified = value
            case "Cache-Control": cacheControl = value
            case "Expires": expires = value
            default: continue
            }
        }
    }

    /// Bytes they take in memory, for the cache that keeps them.
    var cost: Int { lines.reduce(32) { $0 + $1.utf8.count } }
}
