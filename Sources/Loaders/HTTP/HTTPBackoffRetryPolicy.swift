import Foundation
import WebImageCore

/// The built-in retry policy: retries idempotent requests after transient failures, with exponential
/// backoff and full jitter, and honours the server's `Retry-After` up to a cap.
///
/// What it retries (every default stated below):
///   - only the methods in ``retriedMethods`` (GET and HEAD: sending them twice changes nothing);
///   - statuses in ``retriedStatusCodes`` (408, 429, 500, 502, 503, 504). 4xx other than 408 and 429
///     are never retried even when listed: the same request gets the same answer;
///   - `.timeout`, and loading failures that say they are retryable: the HTTP loader's
///     ``HTTPLoaderFailure/network(curlCode:)`` failures of the connection or the transfer (refused connection,
///     reset, empty reply, body cut short, HTTP/2 stream errors: see ``retriedNetworkCodes``). Not DNS
///     failures, TLS verification failures, redirect loops, size limits or bad data.
///
/// How long it waits before attempt *n + 1*:
///   - the server's `Retry-After` when the answer had one (delta-seconds or an HTTP-date). When it
///     asks for more than ``maxRetryAfter`` the policy stops instead: retrying sooner than the server
///     asked is impolite and likely futile, and waiting longer is more than a caller should hold;
///   - otherwise "full jitter": a uniformly random delay between 0 and
///     `min(maxDelay, baseDelay * 2^(n - 1))`, so many clients that failed together do not come back
///     together.
///
/// ```swift
/// var configuration = HTTPLoaderConfiguration()
/// configuration.retryPolicy = HTTPBackoffRetryPolicy(maxAttempts: 4)
/// ```
public struct HTTPBackoffRetryPolicy: HTTPRetryPolicy {
    /// Attempts in all, the first one included. 3 by default: two retries.
    public var maxAttempts: Int
    /// The backoff ceiling after the first failure, doubling with each attempt. 0.5 s by default.
    public var baseDelay: Duration
    /// The largest backoff ceiling. 30 s by default.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a server asking for more ends the retries. 60 s by default.
    public var maxRetryAfter: Duration
    /// Statuses worth another attempt. 408, 429, 500, 502, 503 and 504 by default; other 4xx are
    /// ignored here.
    public var retriedStatusCodes: Set<Int>
    /// Methods safe to send twice. GET and HEAD by default.
    public var retriedMethods: Set<String>

    /// libcurl codes (``HTTPLoaderFailure/network(curlCode:)``) of failures that another attempt may not meet:
    /// 7 could not connect, 16 HTTP/2 framing, 18 body cut short, 33 range not honoured (a resumed
    /// transfer starts over), 52 empty reply, 55 send failed, 56 receive failed, 92 HTTP/2 stream reset.
    public static let retriedNetworkCodes: Set<Int> = [7, 16, 18, 33, 52, 55, 56, 92]

    /// A policy with the stated defaults, or the values given.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(60), retriedStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retriedMethods: Set<String> = ["GET", "HEAD"]
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retriedStatusCodes = retriedStatusCodes
        self.retriedMethods = retriedMethods
    }

    /// `.retry` after the server's `Retry-After` or a jittered backoff when the failure is transient,
    /// the method idempotent and attempts are left; `.stop` otherwise.
    public func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
        guard failure.attempt < maxAttempts, retriedMethods.contains(failure.method.uppercased()),
            isTransient(failure.error)
        else { return .stop }
        if let asked = failure.retryAfter {
            return asked <= maxRetryAfter ? .retry(after: asked) : .stop
        }
        // Full jitter, drawn in nanoseconds: fine enough for any delay, and no Double rounding.
        let ceiling = backoffCeiling(afterAttempt: failure.attempt).wholeNanoseconds
        return .retry(after: .nanoseconds(Int64.random(in: 0...ceiling)))
    }

    /// The longest backoff after attempt `attempt` failed: `baseDelay` doubled per earlier attempt,
    /// capped at `maxDelay`.
    public func backoffCeiling(afterAttempt attempt: Int) -> Duration {
        // Doubling stops once past maxDelay, so no shift or product overflows.
        var ceiling = max(.zero, baseDelay)
        var doublings = max(0, attempt - 1)
        let doublingLimit = Duration.seconds(Int64.max / 4)  // far past any delay; doubling stays in range
        while doublings > 0 && (ceiling < maxDelay) && (ceiling > .zero) && (ceiling < doublingLimit) {
            ceiling *= 2
            doublings -= 1
        }
        return max(.zero, min(maxDelay, ceiling))
    }

    private func isTransient(_ error: ImageError) -> Bool {
        switch error {
        case .invalidStatusCode(let code):
            if (400..<500).contains(code) && code != 408 && code != 429 { return false }
            return retriedStatusCodes.contains(code)
        case .timeout:
            return true
        case .loadingFailed(let failure):
            return failure.isRetryable
        default:
            return false
        }
    }
}
