import Foundation
import Logging

/// Everything one run of the load flow needs, resolved once at the start.
///
/// A class, not a struct: the flow's async steps keep their arguments in task frames, and copying a
/// value of thirteen fields (each existential and string retained, then released) into each frame was
/// a twentieth of the instructions of a download's load flow; a reference is retained once.
final class LoadRequest: Sendable {
    let url: URL
    let options: ImageOptions
    let context: ImageContext
    let logger: Logger
    /// Whether a tracer is bootstrapped: read once per load, so the steps make spans or skip them all.
    let tracing: Bool
    /// Whether a metrics backend is bootstrapped: read once per load, as `tracing` is.
    let measuring: Bool
    let key: String
    let originalKey: String
    let transformer: (any ImageTransformer)?
    let serializer: (any CacheSerializer)?
    let cache: any ImageCache
    let loader: any ImageLoader
    let shouldDownload: (@Sendable (URL) -> Bool)?

    init(
        url: URL, options: ImageOptions, context: ImageContext, logger: Logger, tracing: Bool, measuring: Bool,
        key: String, originalKey: String, transformer: (any ImageTransformer)?, serializer: (any CacheSerializer)?,
        cache: any ImageCache, loader: any ImageLoader, shouldDownload: (@Sendable (URL) -> Bool)?
    ) {
        self.url = url
        self.options = options
        self.context = context
        self.logger = logger
        self.tracing = tracing
        self.measuring = measuring
        self.key = key
        self.originalKey = originalKey
        self.transformer = transformer
        self.serializer = serializer
        self.cache = cache
        self.loader = loader
        self.shouldDownload = shouldDownload
    }

    /// This request with `context` instead of its own (a `refreshCached` load hands the loader what
    /// the cache holds).
    func with(context: ImageContext) -> LoadRequest {
        LoadRequest(
            url: url, options: options, context: context, logger: logger, tracing: tracing,
            measuring: measuring, key: key, originalKey: originalKey, transformer: transformer,
            serializer: serializer, cache: cache, loader: loader, shouldDownload: shouldDownload)
    }
}
