import Foundation
import Synchronization
import WebImage

/// imgproxy's fallback image (`IMGPROXY_FALLBACK_IMAGE_DATA`, `_PATH` or `_URL`): processed with the
/// request's options in place of a source that cannot be downloaded, answered with
/// `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE` (200 by default, the download error's own code when 0) and cached by clients for
/// `IMGPROXY_FALLBACK_IMAGE_TTL` seconds (the usual TTL when 0). The server never keeps such an answer
/// under the URL: the origin may be back for the next request.
final class FallbackImage: Sendable {
    /// Where the image comes from.
    enum Origin: Sendable, Equatable {
        /// Its bytes, from `IMGPROXY_FALLBACK_IMAGE_DATA` (base64) or `_PATH` (read at start).
        case bytes(Data)
        /// Fetched once, when first needed, as any source.
        case url(URL)
    }

    /// How an answer made from the fallback image differs from a normal one.
    struct Use: Sendable, Equatable {
        var status: Int
        var ttl: Int?
    }

    let origin: Origin
    /// `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`; nil: the status the download error would have had.
    let status: Int?
    /// `IMGPROXY_FALLBACK_IMAGE_TTL`; nil: the server's TTL.
    let ttl: Int?
    /// The image once decoded (it is small and used whenever origins fail, so it is decoded once).
    private let decoded = Mutex<Image?>(nil)

    init(origin: Origin, status: Int?, ttl: Int?) {
        self.origin = origin
        self.status = status
        self.ttl = ttl
    }

    /// How the answer made from it goes out, after a download that failed with `failure`.
    func use(after failure: ServerFailure) -> Use {
        Use(status: status ?? failure.code, ttl: ttl)
    }

    /// The decoded image; fetched through `fetcher` (and its budgets) when it is a URL.
    func image(using fetcher: SourceFetcher) async throws(ImageError) -> Image {
        if let image = decoded.withLock({ $0 }) { return image }
        let fetched: SourceFetcher.Fetched
        switch origin {
        case .bytes(let data): fetched = .encoded(data, url: Self.key, decoding: SourceDecoding())
        case .url(let url): fetched = try await fetcher.fetch(url, decoding: SourceDecoding())
        }
        let image = try fetcher.decode(fetched)
        decoded.withLock { $0 = image }
        return image
    }

    /// The key the decoded fallback image is kept under among decoded sources.
    private static let key = URL(string: "fallback:image")!
}
