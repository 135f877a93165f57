import Foundation
import WebImage

/// Finds source images in two phases, so that waiting on an origin never holds a worker slot:
/// ``fetch(_:decoding:)`` (network only: the decoded-source cache, else the bytes from the kept-bytes
/// cache or the origin) runs under the download gate, and ``decode(_:)`` (CPU only) runs in a worker slot.
///
/// The HTTP loader has the server preset: SSRF guard on, short timeouts, a size limit, the allow-list
/// checked on every redirect hop. Recent sources are kept twice: decoded (a byte-bounded memory cache,
/// by URL and decode box), so requests for the same decode decode once, and encoded
/// (``SourceBytesLoader``), so requests for another decode of one source fetch it once.
struct SourceFetcher: Sendable {
    /// A source as the first phase found it.
    enum Fetched: Sendable {
        /// Decoded before, for the same box.
        case decoded(Image)
        /// Its bytes, to decode in a worker slot.
        case encoded(Data, url: URL, decoding: SourceDecoding)
    }

    let httpLoader: HTTPLoader
    let keptBytes: SourceBytesLoader
    let decodedSources: MemoryCache
    /// The answer headers of recent sources that shape the server's answers, by URL (a few bytes each).
    let originHeaders = LRUCache<OriginHeaders>(costLimit: SourceFetcher.originHeadersBytes)
    let coders: ImageCodersManager
    let decodeOptions: DecodeOptions
    let metrics: ServerMetrics

    init(configuration: ServerConfiguration, coders: ImageCodersManager, metrics: ServerMetrics) {
        self.metrics = metrics
        self.coders = coders
        var http = HTTPLoaderConfiguration.server
        // IMGPROXY_USER_AGENT: some origins answer only the agents they know.
        if let userAgent = configuration.userAgent { http.userAgent = userAgent }
        http.maxResponseSize = configuration.maxSourceFileSize
        http.timeout = .seconds(configuration.downloadTimeout)
        http.maxRedirects = configuration.maxRedirects
        http.coders = coders
        // Blocking a source URL for good after one 404 would let one bad request poison later ones
        // made after the origin is fixed; the result cache already spares the origin.
        http.failedURLStatusCodes = []
        http.refusesPrivateAddresses = true
        http.allowsPrivateNetworks = configuration.allowsPrivateSources
        // Interrupted bodies kept for resuming count against the server's memory, which the caches'
        // budgets bound; a few megabytes resume the common case (one large source cut short).
        http.resumableDataCapacity = Self.resumableBytes
        http.allowsLoopbackAddresses = configuration.allowsLoopbackSources
        http.allowsLinkLocalAddresses = configuration.allowsLinkLocalSources
        http.allowedPrivateAddresses = configuration.allowedSourceAddresses
        let allowList = SourceAllowList(configuration.allowedSources)
        if !allowList.patterns.isEmpty {
            // IMGPROXY_ALLOWED_SOURCES holds for every hop, not only the URL the request names.
            http.allowsRedirect = { url in allowList.allows(url) }
        }
        httpLoader = HTTPLoader(configuration: http)
        var loaders: [any ImageLoader] = [httpLoader]
        if let root = configuration.localFileSystemRoot {
            // imgproxy's local:// sources, under the root alone, with the same size limit.
            var local = FileLoaderConfiguration()
            local.localRoot = root
            local.maxFileSize = configuration.maxSourceFileSize
            loaders.append(FileLoader(configuration: local, coders: coders))
        }
        if var s3 = configuration.s3 {
            // The same limits and timeouts as any source; the endpoint is the operator's, so the address
            // guard (there for strangers' hosts) does not apply to it.
            s3.http = http
            s3.http.refusesPrivateAddresses = false
            s3.http.allowsRedirect = nil
            loaders.append(S3Loader(configuration: s3))
        }
        let upstream: any ImageLoader = loaders.count == 1 ? httpLoader : ImageLoadersManager(loaders: loaders)
        keptBytes = SourceBytesLoader(upstream: upstream, byteLimit: configuration.sourceBytesLimit) { kept in
            metrics.countSourceLookup(kept ? "kept_bytes" : "fetched")
        }
        var decodeOptions = DecodeOptions(
            maxPixelCount: configuration.maxSourcePixels,
            // The frame limit keeps the first frames (ImageService.firstFrames), as
            // imgproxy does; the decoder's own cap bounds the bookkeeping.
            maxFrameCount: DecodeOptions.defaultMaxFrameCount,
            maxTotalPixelCount: configuration.maxTotalSourcePixels,
            timeLimit: .milliseconds(Int(configuration.requestTimeout * 1000)))
        decodeOptions.thumbnailReducingGap = configuration.shrinkOnLoadGap
        // imgproxy's IMGPROXY_MAX_ANIMATION_FRAMES of 1: an animated source is its first frame.
        decodeOptions.firstFrameOnly = configuration.maxAnimationFrames <= 1
        // As imgproxy (libvips) and browsers: a truncated file shows the rows it has.
        decodeOptions.allowPartialImage = configuration.showsTruncatedImages
        // Off by default, as imgproxy (libvips ignores gAMA/cHRM); on, as Chrome and Firefox show the file.
        decodeOptions.appliesPNGGamma = configuration.appliesPNGGamma
        self.decodeOptions = decodeOptions
        decodedSources = MemoryCache(costLimit: configuration.sourceMemoryLimit)
    }

    /// Bytes of source answer headers kept: thousands of sources' worth.
    static let originHeadersBytes = 1 << 20

    /// The headers of `url`'s last answer that shape the server's answers (empty when not known).
    func originHeaders(for url: URL) -> OriginHeaders {
        originHeaders.value(forKey: url.absoluteString) ?? OriginHeaders()
    }

    /// Bytes of interrupted source bodies the loader keeps to resume them.
    static let resumableBytes = 8 * 1024 * 1024

    /// The decoded source at `url` for `decoding` when it is in memory, else its bytes. Network only:
    /// cancelling the task cancels the download.
    func fetch(_ url: URL, decoding: SourceDecoding) async throws(ImageError) -> Fetched {
        // Again: a download that finished while this one waited for its slot may have brought it.
        if let fetched = cached(url, decoding: decoding) { return fetched }
        let loaded = try await keptBytes.load(url).get()
        let headers = OriginHeaders(loaded.response)
        if !headers.isEmpty { originHeaders.set(headers, forKey: url.absoluteString, cost: headers.cost) }
        return .encoded(loaded.data, url: url, decoding: decoding)
    }

    /// The source at `url` for `decoding` when memory holds it (decoded, or its bytes), else nil; never
    /// waits. The server asks this before taking a download slot, so requests that memory can answer
    /// never queue behind downloads from slow origins.
    func cached(_ url: URL, decoding: SourceDecoding) -> Fetched? {
        if let image = decodedSources.image(forKey: Self.decodedKey(url, decoding)) {
            metrics.countSourceLookup("decoded")
            return .decoded(image)
        }
        if let data = keptBytes.keptData(for: url) {
            metrics.countSourceLookup("kept_bytes")
            return .encoded(data, url: url, decoding: decoding)
        }
        return nil
    }

    /// The image of a fetched source, decoding (fitted into its box while decoding, when it has one) and
    /// keeping it in memory when needed. CPU only: call it in a worker slot; `cancellation` stops the decode.
    func decode(_ fetched: Fetched, cancellation: DecodeCancellation? = nil) throws(ImageError) -> Image {
        switch fetched {
        case .decoded(let image):
            return image
        case .encoded(let data, let url, let decoding):
            var options = decoding.applied(to: decodeOptions)
            options.cancellation = cancellation
            let image = options.enforcingOutputSize(try coders.decode(data, options: options))
            decodedSources.setImage(image, forKey: Self.decodedKey(url, decoding))
            return image
        }
    }

    /// Bytes held by the two source caches now.
    var heldBytes: Int { decodedSources.totalCost + keptBytes.keptByteCount }

    static func decodedKey(_ url: URL, _ decoding: SourceDecoding) -> String {
        url.absoluteString + decoding.keySuffix
    }
}
