import Foundation
import WebImageCore

/// Decides whether a failed download is tried again (Kingfisher's `RetryStrategy` shape).
///
/// The loader asks after every failed attempt except those that are final whatever a policy says:
/// cancellation, refusals, invalid URLs, "not modified", and 4xx answers other than 408 and 429 (the
/// request would be sent again unchanged, so the answer would be too). A retry waits in the loader's
/// queue holding no connection, then starts a new attempt (resuming the body when it can, see
/// ``HTTPLoaderConfiguration/resumableDataCapacity``).
///
/// ``HTTPBackoffRetryPolicy`` is the built-in policy; write your own for other rules:
///
/// ```swift
/// struct TwiceQuickly: HTTPRetryPolicy {
///     func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
///         failure.attempt < 3 ? .retry(after: .milliseconds(200)) : .stop
///     }
/// }
/// ```
///
/// Called on the loader's event thread: decide quickly, never block.
public protocol HTTPRetryPolicy: Sendable {
    /// What to do after `failure`.
    func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision
}

/// What the loader knows about a failed attempt: the error, the attempt number, and the response
/// head when the server answered.
public struct HTTPRetryContext: Sendable {
    /// The requested URL.
    public var url: URL
    /// The request method ("GET" unless a request modifier changed it).
    public var method: String
    /// The failure of this attempt.
    public var error: ImageError
    /// The attempt that failed: 1 for the first try. An immediate restart after a server refused to
    /// resume a body counts as an attempt too.
    public var attempt: Int
    /// The status code, when the server answered (also for failures after the head, such as a body
    /// cut short).
    public var statusCode: Int?
    /// The response's header fields, names lowercased; empty when no response came.
    public var responseHeaders: [String: String]
    /// The server's `Retry-After` as the time from when the failure was seen, from either form the
    /// header takes (delta-seconds, or an HTTP-date, whose past dates give zero). Nil when the header
    /// is missing or malformed.
    public var retryAfter: Duration?

    /// A context for `attempt` failing with `error`; `retryAfter` is read from `responseHeaders`
    /// as of `now`.
    public init(
        url: URL, method: String = "GET", error: ImageError, attempt: Int, statusCode: Int? = nil,
        responseHeaders: [String: String] = [:], now: Date = Date()
    ) {
        self.url = url
        self.method = method
        self.error = error
        self.attempt = attempt
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        retryAfter = responseHeaders["retry-after"].flatMap { HTTPDate.retryAfter($0, now: now) }
    }
}

/// The answer of an ``HTTPRetryPolicy``.
public enum HTTPRetryDecision: Sendable, Hashable {
    /// Try again after this long (waiting in the loader's queue, holding no connection).
    case retry(after: Duration)
    /// Report the failure.
    case stop
}

/// The default policy: never retry.
public struct NoRetryPolicy: HTTPRetryPolicy {
    /// The policy that always stops.
    public init() {}
    /// Always `.stop`.
    public func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision { .stop }
}
