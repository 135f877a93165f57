import Foundation

/// How far a load has come.
public struct LoadProgress: Sendable {
    /// Bytes received so far.
    public var receivedBytes: Int64
    /// Bytes expected in all; nil when the server did not say.
    public var expectedBytes: Int64?
    /// A partial image decoded so far (only with `.progressiveLoad`).
    public var partialImage: Image?

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
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (usually by its scheme).
    func canRequestImage(for url: URL) -> Bool
    /// Starts loading `url`. Calls `completion` exactly once unless the returned operation is
    /// cancelled first, in which case it may not be called at all. With `refreshCached`, the context's
    /// ``ImageContext/cacheValidators`` ask for a conditional request; "not modified" completes with
    /// `.cacheNotModified`.
    func requestImage(with url: URL, options: ImageOptions, context: ImageContext,
                      progress: LoadProgressHandler?,
                      completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void) -> any ImageOperation
    /// Whether the manager should put `url` on its failed list after `error`.
    func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool
}

extension ImageLoader {
    /// Blocks URLs whose failure will repeat: bad data, unsupported formats, 4xx/5xx, invalid URLs.
    /// Never cancellation, timeouts, network failures or "not modified".
    public func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        ImageError.isPermanentFailure(error)
    }
}

extension ImageError {
    /// Whether trying again is pointless: the data or URL is bad, not the moment.
    public static func isPermanentFailure(_ error: ImageError) -> Bool {
        switch error {
        case .badImageData, .unsupportedFormat, .imageTooLarge, .invalidURL, .invalidContentType, .fileIO:
            return true
        case .invalidStatusCode(let code):
            return (400..<600).contains(code) && code != 408 && code != 429
        case .cancelled, .timeout, .network, .cacheNotModified, .downloadNotAllowed, .responseTooLarge,
             .requestRefused, .blockedURL, .cacheIO:
            return false
        case .malformedResponse, .headerTooLarge:
            return false
        }
    }
}
