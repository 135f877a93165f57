import Foundation

/// The HTTP rules for resuming a body (RFC 9110 sections 13.1.5 and 14): which responses may be
/// resumed, the `If-Range` validator, and the `Content-Range` of a 206.
enum RangeResume {
    /// A `Last-Modified` counts as strong only when the response's `Date` is at least this many
    /// seconds later (RFC 9110 section 8.8.2.2): otherwise the resource could have changed twice
    /// within the clock's one-second resolution.
    static let strongLastModifiedMargin: TimeInterval = 1

    /// libcurl's CURLE_RANGE_ERROR: the failure reported when a server answers a range request with
    /// a range other than the one asked for.
    static let rangeErrorCode = 33

    /// The `If-Range` value for a response with `headers` (names lowercased): its ETag when strong,
    /// else its Last-Modified when strong; nil when neither is, or the response cannot be resumed at
    /// all (it refuses ranges, or its body is content-encoded so our bytes are not its bytes).
    static func validator(for headers: [String: String]) -> String? {
        if headers["accept-ranges"]?.lowercased() == "none" { return nil }
        if let encoding = headers["content-encoding"], encoding.lowercased() != "identity" { return nil }
        if let etag = headers["etag"], etag.hasPrefix("\""), etag.count >= 2 { return etag }
        if let lastModified = headers["last-modified"], let modified = HTTPDate.parse(lastModified),
            let dateHeader = headers["date"], let date = HTTPDate.parse(dateHeader),
            date.timeIntervalSince(modified) >= strongLastModifiedMargin
        {
            return lastModified
        }
        return nil
    }

    /// The byte range of a 206 answer, from `Content-Range: bytes first-last/complete` (complete may
    /// be `*`); nil when the value is not a single satisfied byte range.
    static func contentRange(_ value: String) -> (first: Int, last: Int, complete: Int?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first
        else { return nil }
        if halves[1] == "*" { return (first, last, nil) }
        guard let complete = Int(halves[1]), complete > last else { return nil }
        return (first, last, complete)
    }
}
