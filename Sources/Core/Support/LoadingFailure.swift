/// A loader's own account of why a load failed, carried inside ``LoadingFailure``: the HTTP loader's
/// libcurl and TLS detail, a custom loader's backend codes. Core never looks inside; callers that know
/// the loader ask for its type with ``LoadingFailure/reason(as:)``.
public protocol LoaderFailureReason: Sendable, Hashable, CustomStringConvertible {}

/// Why a loader could not fetch an image's bytes, in ``ImageError/loadingFailed(_:)``: what every caller
/// needs (a message, whether another attempt may succeed, the HTTP status when one came) plus the
/// loader's own typed ``reason``.
///
/// A loading failure is about the connection or the loader, not the resource, so the manager never puts
/// its URL on the failed list (see ``ImageLoader/shouldBlockFailedURL(_:error:)``).
public struct LoadingFailure: Sendable, Hashable, CustomStringConvertible {
    /// What happened, for logs and error pages.
    public var message: String
    /// Whether asking again soon may succeed (a refused connection, a body cut short): a retry policy
    /// retries these and no others.
    public var isRetryable: Bool
    /// The status of the last response head received, when one came before the failure.
    public var statusCode: Int?
    /// The loader's own reason, or nil when it gives none.
    public var reason: (any LoaderFailureReason)?

    /// A failure with the given message, retryability, status and loader reason.
    public init(message: String, isRetryable: Bool, statusCode: Int? = nil, reason: (any LoaderFailureReason)? = nil) {
        self.message = message
        self.isRetryable = isRetryable
        self.statusCode = statusCode
        self.reason = reason
    }

    /// The loader's reason when it is a `Reason`, nil otherwise.
    public func reason<Reason: LoaderFailureReason>(as type: Reason.Type) -> Reason? {
        reason as? Reason
    }

    public var description: String {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        guard let reason else { return message + status }
        return message.isEmpty ? "\(reason)\(status)" : "\(reason): \(message)\(status)"
    }

    public static func == (lhs: LoadingFailure, rhs: LoadingFailure) -> Bool {
        guard lhs.message == rhs.message, lhs.isRetryable == rhs.isRetryable, lhs.statusCode == rhs.statusCode else {
            return false
        }
        switch (lhs.reason, rhs.reason) {
        case (nil, nil): return true
        case (let left?, let right?): return left.isEqual(to: right)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(message)
        hasher.combine(isRetryable)
        hasher.combine(statusCode)
        if let reason { reason.hash(into: &hasher) }
    }
}

extension LoaderFailureReason {
    /// Whether `other` is a reason of the same type and equal to this one.
    fileprivate func isEqual(to other: any LoaderFailureReason) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

extension ImageError {
    /// The loading failure this error carries, nil for every other case.
    public var loadingFailure: LoadingFailure? {
        if case .loadingFailed(let failure) = self { return failure }
        return nil
    }
}
