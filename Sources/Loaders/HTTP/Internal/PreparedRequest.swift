import Foundation
import Logging

/// A request ready to send: headers final (defaults, user headers, validators, request modifier),
/// plus the switches that change what a transfer does. Identical prepared requests share a transfer.
struct PreparedRequest: Sendable {
    let url: URL
    let method: String
    /// Header lines in send order, as "Name: value".
    let headerLines: [String]
    let timeout: Duration
    let handlesCookies: Bool
    let allowsInvalidCertificates: Bool
    /// Whether If-None-Match / If-Modified-Since were sent, so a 304 means "not modified".
    let sentValidators: Bool
    /// "scheme://host:port": the unit of the per-host connection limit.
    let hostKey: String
    /// What makes two requests the same transfer: URL, method, headers (order-insensitive), and the
    /// switches. Credentials are per loader, so every request of a loader has the same ones.
    /// Computed once: the scheduler looks it up on every enqueue, cancel and finish.
    let key: TransferKey
    /// Whether the configuration's credentials go with this request: false after a redirect (followed
    /// by the event loop) to another host.
    var sendsCredentials = true
    /// When a redirect chain the event loop follows must be over: its first hop's start plus
    /// ``timeout``, as libcurl counts a chain it follows against one timeout. Nil on a first hop (whose
    /// transfer gets the whole ``timeout``) and when there is no timeout. Not part of ``key``.
    var deadline: ContinuousClock.Instant?
    /// Where this request's transfer logs: the context's logger of the caller that started it; nil
    /// uses the configuration's. Not part of ``key``.
    var logger: Logger?

    /// Whether an interrupted body of this request may be kept and resumed: a GET whose headers ask
    /// for no range of their own.
    var isResumable: Bool {
        method == "GET"
            && !headerLines.contains { line in
                let lowered = line.lowercased()
                return lowered.hasPrefix("range:") || lowered.hasPrefix("if-range:")
            }
    }

    init(
        url: URL, method: String, headerLines: [String], timeout: Duration, handlesCookies: Bool,
        allowsInvalidCertificates: Bool, sentValidators: Bool, hostKey: String
    ) {
        self.url = url
        self.method = method
        self.headerLines = headerLines
        self.timeout = timeout
        self.handlesCookies = handlesCookies
        self.allowsInvalidCertificates = allowsInvalidCertificates
        self.sentValidators = sentValidators
        self.hostKey = hostKey
        self.key = TransferKey(
            url: url.absoluteString, method: method, headerLines: headerLines.sorted(),
            handlesCookies: handlesCookies, allowsInvalidCertificates: allowsInvalidCertificates,
            timeout: timeout)
    }

    /// The request for the next hop of a redirect the event loop follows: the same request at `url`,
    /// without credentials, `Authorization` and cookies once it leaves the original origin (scheme,
    /// host and port, as libcurl decides), so an https request's secrets never go out over http.
    /// Scheme, host and port of the URL this hop goes to (``hostKey`` stays the first hop's).
    var connectionKey: String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(Self.effectivePort(url).map(String.init) ?? "")"
    }

    func redirected(to url: URL) -> PreparedRequest {
        let sameOrigin =
            url.scheme?.lowercased() == self.url.scheme?.lowercased()
            && url.host?.lowercased() == self.url.host?.lowercased()
            && Self.effectivePort(url) == Self.effectivePort(self.url)
        let lines =
            sameOrigin
            ? headerLines
            : headerLines.filter {
                let name = $0.prefix { $0 != ":" }.lowercased()
                return name != "authorization" && name != "cookie"
            }
        var next = PreparedRequest(
            url: url, method: method, headerLines: lines, timeout: timeout,
            handlesCookies: handlesCookies, allowsInvalidCertificates: allowsInvalidCertificates,
            sentValidators: sentValidators, hostKey: hostKey)
        next.sendsCredentials = sendsCredentials && sameOrigin
        next.logger = logger
        next.deadline = deadline
        return next
    }

    /// The URL's port, or its scheme's default.
    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
