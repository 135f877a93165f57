import Foundation

/// Every failure the framework reports. Switch on the case to decide what to do.
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is empty, malformed, or no loader handles its scheme.
    case invalidURL(String)
    /// The URL failed before and is blocked; pass `.retryFailed` to try again.
    case blockedURL(URL)
    /// The request was cancelled.
    case cancelled
    /// The server answered with a status code outside the acceptable range.
    case invalidStatusCode(Int)
    /// The server's content type is not an acceptable one.
    case invalidContentType(String?)
    /// The bytes are not a valid image (corrupt, truncated, wrong format).
    case badImageData(reason: String)
    /// No registered coder handles the data's format.
    case unsupportedFormat(ImageFormat)
    /// The image has more pixels than the decode options allow.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// A conditional request found the cached image still current (HTTP 304).
    case cacheNotModified
    /// The image is not in the cache and the request forbids downloading it (`fromCacheOnly`, a hook's veto).
    case downloadNotAllowed(reason: String)
    /// The response body exceeded the loader's size limit.
    case responseTooLarge(limit: Int)
    /// The request timed out.
    case timeout
    /// The loader could not fetch the bytes (the connection failed, the reply was unusable): what every
    /// caller needs in ``LoadingFailure``, and the loader's own detail in its ``LoadingFailure/reason``.
    case loadingFailed(LoadingFailure)
    /// The request was refused before it was sent: a request modifier returned nil, a redirect went to a
    /// forbidden scheme, or the address is not allowed.
    case requestRefused(reason: String)
    /// Reading a file failed (missing, unreadable, a directory, outside the allowed roots).
    case fileIO(path: String, reason: String)
    /// A cache failed to read or write.
    case cacheIO(reason: String)
    /// A decode would cost more than one of the budgets in ``DecodeOptions`` allows (frames, total
    /// pixels, progressive scans, time, decoder memory); `value` is what the image needed or reached and
    /// `limit` the budget, in the budget's unit (``DecodeBudget/unit``).
    case decodeBudgetExceeded(DecodeBudget, value: Int, limit: Int)
    /// A parameter given to a transformer, a parser or another public API is out of its range; `name` is
    /// the parameter, `reason` what is wrong with its value.
    case invalidParameter(name: String, reason: String)
    /// A plugin's own failure (a custom loader's "not found", a cache's backend error): `message` says what
    /// happened, and `isRetryable` whether asking again later may succeed (false puts the URL on the
    /// manager's failed list).
    case pluginFailure(message: String, isRetryable: Bool)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .blockedURL(let url): "URL failed before and is blocked (use retryFailed): \(url.absoluteString)"
        case .cancelled: "cancelled"
        case .invalidStatusCode(let code): "HTTP status \(code)"
        case .invalidContentType(let type): "unacceptable content type \(type ?? "(none)")"
        case .badImageData(let reason): "bad image data: \(reason)"
        case .unsupportedFormat(let format): "no coder for format \(format)"
        case .imageTooLarge(let w, let h, let limit): "image \(w)x\(h) exceeds the limit of \(limit) pixels"
        case .cacheNotModified: "not modified"
        case .downloadNotAllowed(let reason): "download not allowed: \(reason)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .timeout: "timed out"
        case .loadingFailed(let failure): "loading failed: \(failure)"
        case .requestRefused(let reason): "request refused: \(reason)"
        case .fileIO(let path, let reason): "\(path): \(reason)"
        case .cacheIO(let reason): "cache I/O error: \(reason)"
        case .decodeBudgetExceeded(let budget, let value, let limit):
            "decode over its \(budget) budget: \(value) \(budget.unit), limit \(limit)"
        case .invalidParameter(let name, let reason): "invalid \(name): \(reason)"
        case .pluginFailure(let message, let isRetryable): "\(message)\(isRetryable ? "" : " (permanent)")"
        }
    }
}
