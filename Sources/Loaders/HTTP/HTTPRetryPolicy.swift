import Foundation
import WebImageCore

/// Decides whether a failed download is tried again (Kingfisher's `RetryStrategy` shape).
///
/// The loader never asks about cancellation or 4xx answers: those are final whatever the policy says.
///
/// ```swift
/// struct TwiceQuickly: HTTPRetryPolicy {
///     func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
///         failure.attempt < 3 ? .retry(after: 0.2) : .stop
///     }
/// }
/// ```
public protocol HTTPRetryPolicy: Sendable {
    /// What to do after `failure`.
    func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision
}

/// What the loader knows about a failed attempt.
public struct HTTPRetryContext: Sendable {
    /// The requested URL.
    public var url: URL
    /// The failure of this attempt.
    public var error: ImageError
    /// The attempt that failed: 1 for the first try.
    public var attempt: Int
    /// The status code, when the server answered.
    public var statusCode: Int?

    /// A context for `attempt` failing with `error`.
    public init(url: URL, error: ImageError, attempt: Int, statusCode: Int? = nil) {
        self.url = url
        self.error = error
        self.attempt = attempt
        self.statusCode = statusCode
    }
}

/// The answer of an ``HTTPRetryPolicy``.
public enum HTTPRetryDecision: Sendable, Hashable {
    /// Try again after this many seconds (waiting in the loader's queue, holding no connection).
    case retry(after: TimeInterval)
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
