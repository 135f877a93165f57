import Foundation
import Logging
import WebImageCore

/// Loads `s3://bucket/key` URLs (imgproxy's S3 sources) from S3 or an S3-compatible store, through an
/// ``HTTPLoader`` that signs each request with ``AWSSignature``: the same coalescing, limits, guard and
/// retries as any HTTP source. `?versionId=` in the URL asks for that version.
///
/// ```swift
/// let s3 = S3Loader(configuration: S3LoaderConfiguration(signature: AWSSignature.fromEnvironment()!))
/// ImageLoadersManager.shared.addLoader(s3)
/// ```
public final class S3Loader: ImageLoader {
    /// The loader's settings.
    public let configuration: S3LoaderConfiguration
    /// The signing HTTP loader the requests go through.
    public let httpLoader: HTTPLoader

    /// A loader with `configuration`.
    public init(configuration: S3LoaderConfiguration, logger: Logger = Logger(label: "SwiftWebImage.S3Loader")) {
        self.configuration = configuration
        var http = configuration.http
        http.awsSignature = configuration.signature
        httpLoader = HTTPLoader(configuration: http, logger: logger)
    }

    /// The scheme of S3 sources.
    public static let scheme = "s3"

    public func canRequestImage(for url: URL) -> Bool { url.scheme?.lowercased() == Self.scheme }

    public func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        guard let target = configuration.objectURL(for: url) else { return false }
        return httpLoader.shouldBlockFailedURL(target, error: error)
    }

    public func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        guard let target = configuration.objectURL(for: url) else {
            completion(.failure(.invalidURL("not an S3 object URL (s3://bucket/key): \(url.absoluteString)")))
            return FinishedOperation()
        }
        return httpLoader.requestImage(
            with: target, options: options, context: context, progress: progress, completion: completion)
    }
}

/// The settings of an ``S3Loader``.
public struct S3LoaderConfiguration: Sendable {
    /// The credentials and region requests are signed with.
    public var signature: AWSSignature
    /// The store's endpoint (`http://127.0.0.1:9000` for a MinIO); nil: AWS's own for the region,
    /// `https://s3.REGION.amazonaws.com`.
    public var endpoint: URL?
    /// Address objects as `ENDPOINT/bucket/key` (path style, what S3-compatible stores expect) rather than
    /// `bucket.ENDPOINT/key`. On by default.
    public var usesPathStyle = true
    /// The HTTP loader's settings (timeouts, size limit, address guard); ``AWSSignature`` is added to them.
    public var http = HTTPLoaderConfiguration()

    /// Settings that sign with `signature` and reach `endpoint` (AWS's for the region when nil).
    public init(signature: AWSSignature, endpoint: URL? = nil) {
        self.signature = signature
        self.endpoint = endpoint
    }

    /// The HTTP URL of the object `url` (`s3://bucket/key[?versionId=...]`) names; nil when it names none.
    public func objectURL(for url: URL) -> URL? {
        guard url.scheme?.lowercased() == S3Loader.scheme, let bucket = url.host, !bucket.isEmpty,
            url.path.count > 1
        else { return nil }
        let base = endpoint ?? URL(string: "https://s3.\(signature.region).amazonaws.com")!
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        let basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast())
            : components.percentEncodedPath
        let key = url.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: Self.keyCharacters) ?? String($0) }.joined(
                separator: "/")
        if usesPathStyle {
            components.percentEncodedPath = basePath + "/" + bucket + "/" + key
        } else {
            components.host = bucket + "." + (components.host ?? "")
            components.percentEncodedPath = basePath + "/" + key
        }
        if let version = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
            $0.name == "versionId"
        })?.value {
            components.queryItems = [URLQueryItem(name: "versionId", value: version)]
        }
        return components.url
    }

    /// What a key segment keeps unescaped: S3's unreserved characters (the signature covers the path as sent).
    static let keyCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// The operation of a request answered before it started: nothing to cancel.
private final class FinishedOperation: ImageOperation {
    func cancel() {}
    var isCancelled: Bool { false }
}
