import WebImageCore

/// The HTTP loader's reason for a failed load, inside `ImageError.loadingFailed(_:)`'s
/// `LoadingFailure`: libcurl's result code, the TLS check that failed, or the loader limit
/// the reply broke. Read it with `ImageError.httpLoaderFailure`.
public enum HTTPLoaderFailure: LoaderFailureReason {
    /// libcurl failed the transfer; `curlCode` is its `CURLcode` (6 host not resolved, 7 could not
    /// connect, 18 body cut short, 47 too many redirects, 56 receive failed, ...).
    case network(curlCode: Int)
    /// The TLS connection failed a check (trust, host name, pinned key, handshake, local settings).
    case tls(TLSFailure)
    /// A compressed response decoded to more than `limit` times the bytes received: a decompression
    /// bomb, stopped before it fills memory.
    case decompressionRatioExceeded(limit: Int)
    /// The server's reply is not HTTP: no status line, or bytes no HTTP parser accepts.
    case malformedResponse
    /// The response head (one header line, or all of them together) exceeded the loader's limit.
    case headerTooLarge(limit: Int)

    /// Whether another attempt may not meet this failure: the libcurl codes in
    /// ``HTTPBackoffRetryPolicy/retriedNetworkCodes``; never a TLS failure or a broken limit.
    public var isRetryable: Bool {
        if case .network(let code) = self { return HTTPBackoffRetryPolicy.retriedNetworkCodes.contains(code) }
        return false
    }

    public var description: String {
        switch self {
        case .network(let code): "network error \(code)"
        case .tls(let failure): "TLS: \(failure)"
        case .decompressionRatioExceeded(let limit): "response decompressed to more than \(limit)x its size on the wire"
        case .malformedResponse: "not an HTTP response"
        case .headerTooLarge(let limit): "response head larger than \(limit) bytes"
        }
    }
}

extension ImageError {
    /// The HTTP loader's failure `reason`, with libcurl's or the loader's `message` and the status of the
    /// last response head (when one came); retryable as ``HTTPLoaderFailure/isRetryable`` says.
    public static func httpLoader(
        _ reason: HTTPLoaderFailure, message: String = "", statusCode: Int? = nil
    ) -> ImageError {
        .loadingFailed(
            LoadingFailure(
                message: message, isRetryable: reason.isRetryable, statusCode: statusCode,
                reason: reason))
    }

    /// The HTTP loader's reason when this is one of its loading failures, nil otherwise.
    public var httpLoaderFailure: HTTPLoaderFailure? {
        loadingFailure?.reason(as: HTTPLoaderFailure.self)
    }
}
