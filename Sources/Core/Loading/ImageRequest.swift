import Foundation

/// An outgoing request as a loader is about to send it; request modifiers may change it.
public struct ImageRequest: Sendable, Hashable {
    /// The URL to fetch.
    public var url: URL
    /// The method; "GET" by default.
    public var method: String
    /// Header fields by name. Names are compared case-insensitively by servers; keep one spelling.
    public var headers: [String: String]
    /// How long the whole request may take before it fails with `.timeout`; nil uses the loader's default.
    public var timeout: Duration?

    /// A request for `url`.
    public init(url: URL, method: String = "GET", headers: [String: String] = [:], timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout
    }
}

/// A response's head as a loader received it; response modifiers may check or change it.
public struct ImageResponse: Sendable, Hashable {
    /// The final URL, after redirects.
    public var url: URL
    /// The HTTP status code (200 for files).
    public var statusCode: Int
    /// Header fields, names lowercased.
    public var headers: [String: String]

    /// A response head for `url`.
    public init(url: URL, statusCode: Int = 200, headers: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    /// The media type without parameters (`image/png` for `image/png; charset=binary`).
    public var mimeType: String? {
        headers["content-type"].map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The validators a later conditional request sends back.
    public var validators: CacheValidators? {
        let validators = CacheValidators(etag: headers["etag"], lastModified: headers["last-modified"])
        return validators.isEmpty ? nil : validators
    }
}

/// ETag and Last-Modified of a cached response; sent back as `If-None-Match` / `If-Modified-Since`
/// when `refreshCached` revalidates.
public struct CacheValidators: Sendable, Hashable, Codable {
    /// The `ETag` the server sent, sent back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` the server sent, sent back as `If-Modified-Since`.
    public var lastModified: String?
    /// Validators made of the response's `ETag` and `Last-Modified`.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
    /// Whether neither validator is present.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// Changes or refuses a request before it is sent (SDWebImage's `SDWebImageDownloaderRequestModifier`).
public protocol RequestModifier: Sendable {
    /// The request to send instead, or nil to refuse it (the load fails with `.requestRefused`).
    func modify(_ request: ImageRequest) -> ImageRequest?
}

/// Checks or changes a response before its body is used (`SDWebImageDownloaderResponseModifier`).
public protocol ResponseModifier: Sendable {
    /// The response to use instead; throw to reject it.
    func modify(_ response: ImageResponse) throws(ImageError) -> ImageResponse
}

/// Transforms downloaded bytes before they are decoded (`SDWebImageDownloaderDecryptor`).
public protocol DownloadDecryptor: Sendable {
    /// The decrypted bytes, or nil when they cannot be decrypted (the load fails with `.badImageData`).
    func decrypt(_ data: Data, response: ImageResponse?) -> Data?
}

/// A ``RequestModifier`` made from a closure.
public struct RequestModifierBlock: RequestModifier {
    private let body: @Sendable (ImageRequest) -> ImageRequest?
    /// A modifier that sends what `body` returns, or refuses the request when it returns nil.
    public init(_ body: @escaping @Sendable (ImageRequest) -> ImageRequest?) { self.body = body }
    public func modify(_ request: ImageRequest) -> ImageRequest? { body(request) }
}

/// A ``ResponseModifier`` made from a closure.
public struct ResponseModifierBlock: ResponseModifier {
    private let body: @Sendable (ImageResponse) throws(ImageError) -> ImageResponse
    /// A modifier that uses what `body` returns, or rejects the response when it throws.
    public init(_ body: @escaping @Sendable (ImageResponse) throws(ImageError) -> ImageResponse) { self.body = body }
    public func modify(_ response: ImageResponse) throws(ImageError) -> ImageResponse { try body(response) }
}

/// A ``DownloadDecryptor`` made from a closure.
public struct DownloadDecryptorBlock: DownloadDecryptor {
    private let body: @Sendable (Data, ImageResponse?) -> Data?
    /// A decryptor that decodes the bytes `body` returns (nil fails the load).
    public init(_ body: @escaping @Sendable (Data, ImageResponse?) -> Data?) { self.body = body }
    public func decrypt(_ data: Data, response: ImageResponse?) -> Data? { body(data, response) }
}
