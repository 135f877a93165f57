import Foundation
import WebImage

/// Fetches and decodes source images through an ``ImageManager`` of the server's own: the HTTP loader
/// with the server preset (SSRF guard on, short timeouts, a size limit), the decode budgets of the
/// configuration, a memory cache of decoded sources, so requests that need the same decode of a source
/// (one fit box, or full size for the other operations) fetch and decode it once, and the kept bytes of
/// recent sources (``SourceBytesLoader``), so requests that need another decode of one fetch it once.
struct SourceFetcher: Sendable {
    let manager: ImageManager
    let httpLoader: HTTPLoader
    let decodeOptions: DecodeOptions
    let metrics: ServerMetrics

    init(configuration: ServerConfiguration, coders: ImageCodersManager, metrics: ServerMetrics) {
        self.metrics = metrics
        var http = HTTPLoaderConfiguration.server
        http.maxResponseSize = configuration.maxSourceFileSize
        http.timeout = configuration.downloadTimeout
        http.coders = coders
        // Blocking a source URL for good after one 404 would let one bad request poison later ones
        // made after the origin is fixed; the result cache already spares the origin.
        http.failedURLStatusCodes = []
        http.refusesPrivateAddresses = true
        http.allowsPrivateNetworks = configuration.allowsPrivateSources
        var allowed = configuration.allowedSourceAddresses
        if configuration.allowsLoopbackSources { allowed.formUnion(Self.loopbackAddresses) }
        http.allowedPrivateAddresses = allowed
        httpLoader = HTTPLoader(configuration: http)
        let keptBytes = SourceBytesLoader(upstream: httpLoader, byteLimit: configuration.sourceBytesLimit) { kept in
            metrics.countSourceLookup(kept ? "kept_bytes" : "fetched")
        }

        var decodeOptions = DecodeOptions(maxPixelCount: configuration.maxSourcePixels,
                                      maxFrameCount: configuration.maxAnimationFrames,
                                      maxTotalPixelCount: configuration.maxTotalSourcePixels,
                                      timeLimit: .milliseconds(Int(configuration.requestTimeout * 1000)))
        decodeOptions.thumbnailReducingGap = configuration.shrinkOnLoadGap
        self.decodeOptions = decodeOptions
        let cache = MemoryCache(costLimit: configuration.sourceMemoryLimit)
        manager = ImageManager(cache: cache, loader: ImageLoadersManager(loaders: [keptBytes]), coders: coders)
    }

    /// The loopback addresses as the guard prints them: IPv4's usual one and IPv6's.
    static let loopbackAddresses: Set<String> = ["127.0.0.1", "0:0:0:0:0:0:0:1"]

    /// The decoded source at `url` (fitted into `decodeBox` while decoding when given) and its file
    /// format. Cancelling the task cancels the download and decode.
    func image(at url: URL, decodeBox: PixelSize? = nil) async throws(ImageError) -> (image: Image, format: ImageFormat) {
        var context = ImageContext()
        context.decodeOptions = decodeOptions
        context.thumbnailPixelSize = decodeBox
        let result = try await manager.image(for: url, options: [.retryFailed], context: context)
        if result.cacheType == .memory { metrics.countSourceLookup("decoded") }
        return (result.image, result.image.format)
    }
}
