import Foundation

/// How far a load has come.
public struct LoadProgress: Sendable {
    /// Bytes received so far.
    public var receivedBytes: Int64
    /// Bytes expected in all; nil when the server did not say.
    public var expectedBytes: Int64?
    /// A partial image decoded so far (only with `.progressiveLoad`).
    public var partialImage: Image?

    /// Progress of `receivedBytes` out of `expectedBytes` (nil: unknown).
    public init(receivedBytes: Int64, expectedBytes: Int64?, partialImage: Image? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.partialImage = partialImage
    }

    /// Fraction done, 0 to 1; nil when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expected = expectedBytes, expected > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expected))
    }
}

/// What a loader delivers: the bytes, and the decoded image when the loader decoded it itself.
public struct LoadedImage: Sendable {
    /// The bytes as received (after any decryptor).
    public var data: Data
    /// The decoded image; nil lets the manager decode `data` with its coders.
    public var image: Image?
    /// The response head, for network loads.
    public var response: ImageResponse?

    /// What a loader loaded: the bytes, the image when it decoded them, and the response head.
    public init(data: Data, image: Image? = nil, response: ImageResponse? = nil) {
        self.data = data
        self.image = image
        self.response = response
    }
}

/// Progress callback of a load.
public typealias LoadProgressHandler = @Sendable (LoadProgress) -> Void

/// Fetches the bytes of an image for a URL (SDWebImage's `SDImageLoader`).
///
/// Register one with ``ImageLoadersManager/addLoader(_:)``; the last registered loader that can
/// request a URL handles it.
///
/// The manager does the caching, decoding, transforming and failed-URL bookkeeping; a loader's duties are
/// only these:
/// - Apply the context's ``ImageContext/requestModifier`` (or a default of its own) to each request, and
///   fail with `.requestRefused` when the modifier refuses it.
/// - Apply ``ImageContext/responseModifier`` and ``ImageContext/downloadDecryptor`` to what arrives, when it
///   has responses and bodies to apply them to.
/// - With `refreshCached` and ``ImageContext/cacheValidators``, ask conditionally and complete with
///   `.cacheNotModified` for "not modified".
/// - Report progress with non-decreasing byte counts, and call `completion` exactly once, unless the
///   returned operation is cancelled first; a cancelled load releases what it holds and completes at most
///   with `.cancelled`.
/// - Fail with ``ImageError`` cases: `.pluginFailure(message:isRetryable:)` for failures of its own.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (usually by its scheme).
    func canRequestImage(for url: URL) -> Bool
    /// Starts loading `url`. Calls `completion` exactly once unless the returned operation is
    /// cancelled first, in which case it may not be called at all. With `refreshCached`, the context's
    /// ``ImageContext/cacheValidators`` ask for a conditional request; "not modified" completes with
    /// `.cacheNotModified`.
    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation
    /// Whether the manager should put `url` on its failed list after `error`.
    func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool
}

extension ImageLoader {
    /// Blocks URLs whose failure will repeat: bad data, unsupported formats, invalid URLs, and the
    /// statuses in ``ImageError/permanentStatusCodes``. Never 5xx, 408, 429, cancellation, timeouts,
    /// loading failures (``ImageError/loadingFailed(_:)``) or "not modified".
    public func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        ImageError.isPermanentFailure(error)
    }
}

extension ImageError {
    /// The HTTP statuses that say the resource itself is bad, so asking again for the same URL gets the
    /// same answer: 400 (the request for this URL is malformed), 404 (not found), 405 (GET not allowed
    /// on it), 410 (gone for good) and 414 (the URL is too long for the server).
    ///
    /// Not here, on purpose: 5xx (the server's trouble, usually passing), 408 and 429 (the moment, not
    /// the resource), 401 and 403 (access that changes: expired signed URLs, tokens a request modifier
    /// refreshes), 451 (legal blocks are regional and get lifted). SDWebImage 5 blocks no status at
    /// all; a server fetching many strangers' URLs still wants dead links remembered, so this keeps the
    /// few that are about the resource.
    public static let permanentStatusCodes: Set<Int> = [400, 404, 405, 410, 414]

    /// Whether trying again is pointless: the data or URL is bad, not the moment.
    public static func isPermanentFailure(_ error: ImageError) -> Bool {
        switch error {
        case .badImageData, .unsupportedFormat, .imageTooLarge, .invalidURL, .invalidContentType, .fileIO,
            .invalidParameter:
            return true
        case .invalidStatusCode(let code):
            return permanentStatusCodes.contains(code)
        case .pluginFailure(_, let isRetryable):
            return !isRetryable
        case .decodeBudgetExceeded(let budget, _, _):
            // The same file over the same budget fails again; running out of time may not.
            return budget != .time
        case .cancelled, .timeout, .loadingFailed, .cacheNotModified, .downloadNotAllowed, .responseTooLarge,
            .requestRefused, .blockedURL, .cacheIO:
            // A loading failure is the connection's or the loader's (TLS settings get fixed, a limit
            // can be raised, a garbled reply may be a passing proxy fault), not the URL's.
            return false
        }
    }
}
