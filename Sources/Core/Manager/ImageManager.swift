import Foundation
import Logging
import Synchronization

/// Loads images: checks the cache, downloads with a loader, decodes, transforms, stores and answers
/// (SDWebImage's `SDWebImageManager`).
///
/// ```swift
/// let manager = ImageManager(cache: myCache, loader: ImageLoadersManager.shared)
/// let result = try await manager.image(for: url)
/// manager.loadImage(with: url, options: [.refreshCached]) { result in ... }
/// ```
public final class ImageManager: Sendable {
    /// The process-wide manager over ``ImageCachesManager/shared``, ``ImageLoadersManager/shared`` and
    /// ``ImageCodersManager/shared``. Import `WebImage` to get it wired with every plugin.
    public static let shared = ImageManager(
        cache: ImageCachesManager.shared, loader: ImageLoadersManager.shared,
        coders: ImageCodersManager.shared)

    /// Where images are cached.
    public let cache: any ImageCache
    /// Where images are loaded from.
    public let loader: any ImageLoader
    /// What decodes loaded bytes when the loader delivers only data.
    public let coders: ImageCodersManager

    /// Settings that may change while the manager runs.
    public struct Settings: Sendable {
        /// Applied to every request without a cache key filter of its own.
        public var cacheKeyFilter: (any CacheKeyFilter)?
        /// Applied to every request without a serializer of its own.
        public var cacheSerializer: (any CacheSerializer)?
        /// Applied to every request without a transformer of its own.
        public var transformer: (any ImageTransformer)?
        /// Asked before each download; return false to veto it (the load fails with `.downloadNotAllowed`).
        public var shouldDownload: (@Sendable (URL) -> Bool)?
        /// Options added to every request.
        public var defaultOptions: ImageOptions = []
        /// Context values laid under every request's own.
        public var defaultContext = ImageContext()
        /// Where the load flow logs, at debug level (a load's start, cache answer, download, decode,
        /// transform and end) and trace level (each step's details); a request's
        /// ``ImageContext/logger`` wins. The library never bootstraps logging: the application does.
        public var logger = Logger(label: "SwiftWebImage.ImageManager")
        /// The defaults: no filter, serializer, transformer or veto; no extra options or context.
        public init() {}
    }

    private struct State {
        var settings = Settings()
        var failedURLs: Set<URL> = []
        var running: [ObjectIdentifier: ImageLoadOperation] = [:]
    }

    /// Guards the settings, the failed-URL list and the set of running operations.
    private let state = Locked(State())

    /// A manager over `cache`, `loader` and `coders`.
    public init(cache: any ImageCache, loader: any ImageLoader, coders: ImageCodersManager = .shared) {
        self.cache = cache
        self.loader = loader
        self.coders = coders
    }

    /// The manager's changeable settings.
    public var settings: Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Number of loads started and not yet finished or cancelled.
    public var runningOperationCount: Int { state.withLock { $0.running.count } }

    /// Cancels every running load.
    public func cancelAll() {
        let operations = state.withLock { Array($0.running.values) }
        for operation in operations { operation.cancel() }
    }

    /// Whether `url` is on the failed list.
    public func isFailedURL(_ url: URL) -> Bool { state.withLock { $0.failedURLs.contains(url) } }
    /// Takes `url` off the failed list.
    public func removeFailedURL(_ url: URL) {
        if state.withLock({ $0.failedURLs.remove(url) }) != nil { LoadMetricsRecorder.failedURLsChanged(by: -1) }
    }
    /// Empties the failed list.
    public func removeAllFailedURLs() {
        let removed = state.withLock { state in
            defer { state.failedURLs.removeAll() }
            return state.failedURLs.count
        }
        if removed > 0 { LoadMetricsRecorder.failedURLsChanged(by: -Double(removed)) }
    }

    func addFailedURL(_ url: URL) {
        if state.withLock({ $0.failedURLs.insert(url).inserted }) { LoadMetricsRecorder.failedURLsChanged(by: 1) }
    }

    /// The cache key of `url` under `context`: the key filter's output (else the URL string), then the
    /// thumbnail and transformer suffixes.
    public func cacheKey(for url: URL, context: ImageContext = ImageContext()) -> String {
        let settings = self.settings
        return cacheKey(
            original: originalCacheKey(for: url, context: context, settings: settings),
            transformer: context.imageTransformer ?? settings.transformer)
    }

    /// The key of the untransformed image: like ``cacheKey(for:context:)`` without the transformer.
    public func originalCacheKey(for url: URL, context: ImageContext = ImageContext()) -> String {
        originalCacheKey(for: url, context: context, settings: settings)
    }

    /// ``originalCacheKey(for:context:)`` with settings already read (a load reads them once).
    private func originalCacheKey(for url: URL, context: ImageContext, settings: Settings) -> String {
        let filter = context.cacheKeyFilter ?? settings.cacheKeyFilter
        var key = filter?.cacheKey(for: url) ?? url.absoluteString
        if let size = context.thumbnailPixelSize {
            key = CacheKey.thumbnailed(key, size: size, preserveAspectRatio: context.preserveAspectRatio)
        }
        return key
    }

    /// ``cacheKey(for:context:)`` from the original key and the load's transformer.
    private func cacheKey(original: String, transformer: (any ImageTransformer)?) -> String {
        guard let transformer else { return original }
        return CacheKey.transformed(original, transformerKey: transformer.transformerKey)
    }

    /// Loads `url`: cache first, then the loader, per `options` and `context`.
    ///
    /// `completion` runs once with the final result (on the context's callback queue), and once before
    /// that with a non-final cached image when `.refreshCached` finds one. After the returned operation
    /// is cancelled it is not called. A memory hit answers before this method returns.
    @discardableResult
    public func loadImage(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping ImageLoadCompletion
    ) -> ImageLoadOperation {
        if let custom = context.customManager, custom !== self {
            var inner = context
            inner.customManager = nil
            return custom.loadImage(
                with: url, options: options, context: inner, progress: progress, completion: completion)
        }
        // Settings and the metrics switch are read once per load: each read takes a lock, and every
        // recording of one load then follows the same answer.
        let settings = self.settings
        let measuring = Telemetry.isMeasuring
        let options = options.union(settings.defaultOptions)
        let context = settings.defaultContext.merging(context)
        let requestURL = url ?? URL(fileURLWithPath: "/")
        let logger = context.logger ?? settings.logger
        // A load's duration goes only to metrics and debug logs: with neither on, no clock is read (a read
        // is about 80 ns on the development machine, and a load made two).
        let started: ContinuousClock.Instant? = measuring || logger.logLevel <= .debug ? .now : nil
        let operation = ImageLoadOperation(url: requestURL) { [weak self] operation in
            _ = self?.state.withLock { $0.running.removeValue(forKey: ObjectIdentifier(operation)) }
            if measuring { LoadMetricsRecorder.runningLoadsChanged(by: -1) }
            if operation.isCancelled {
                if measuring, let started {
                    LoadMetricsRecorder.recordLoad(
                        result: "cancelled", source: "none",
                        nanoseconds: (ContinuousClock.now - started).nanoseconds)
                }
                logger.debug("load cancelled", metadata: ["url": "\(requestURL)"])
            }
        }
        state.withLock { $0.running[ObjectIdentifier(operation)] = operation }
        if measuring { LoadMetricsRecorder.runningLoadsChanged(by: 1) }
        let delivery = Delivery(
            operation: operation, queue: context.callbackQueue, completion: completion,
            started: started, logger: logger, measuring: measuring)

        guard let url, !url.absoluteString.isEmpty, url.scheme != nil || url.isFileURL else {
            delivery.finish(.failure(.invalidURL(url?.absoluteString ?? "")))
            return operation
        }
        if !options.contains(.retryFailed) && isFailedURL(url) {
            delivery.finish(.failure(.blockedURL(url)))
            return operation
        }
        let cache = context.imageCache ?? self.cache
        let transformer = context.imageTransformer ?? settings.transformer
        let originalKey = originalCacheKey(for: url, context: context, settings: settings)
        let key = cacheKey(original: originalKey, transformer: transformer)
        // Memory hits answer on the caller's thread, as SDWebImage does.
        if let hit = synchronousMemoryHit(url: url, key: key, cache: cache, options: options, context: context) {
            delivery.finish(.success(hit))
            return operation
        }
        let request = LoadRequest(
            url: url, options: options, context: context, logger: logger,
            tracing: Telemetry.isTracing, measuring: measuring,
            key: key, originalKey: originalKey, transformer: transformer,
            serializer: context.cacheSerializer ?? settings.cacheSerializer,
            cache: cache, loader: context.imageLoader ?? loader,
            shouldDownload: settings.shouldDownload)
        operation.attach(
            Task { [self] in
                await run(request, delivery: delivery, progress: progress)
            })
        return operation
    }

    private func synchronousMemoryHit(
        url: URL, key: String, cache: any ImageCache, options: ImageOptions,
        context: ImageContext
    ) -> ImageLoadResult? {
        guard !options.contains(.fromLoaderOnly), !options.contains(.refreshCached),
            !options.contains(.queryMemoryData), context.queryCacheType.includesMemory
        else { return nil }
        guard let image = cache.imageFromMemory(forKey: key) else { return nil }
        return ImageLoadResult(image: image, data: nil, cacheType: .memory, url: url)
    }
}

/// Delivers answers of one operation on its callback queue, the final one exactly once.
struct Delivery: Sendable {
    let operation: ImageLoadOperation
    let queue: DispatchQueue?
    let completion: ImageLoadCompletion
    /// When `loadImage` was called: the start of the load's duration; nil when the load neither
    /// records metrics nor logs at debug level.
    let started: ContinuousClock.Instant?
    let logger: Logger
    /// Whether the load records metrics (``LoadRequest/measuring``).
    let measuring: Bool

    func finish(_ result: Result<ImageLoadResult, ImageError>) {
        guard operation.claimFinal() else { return }
        record(result)
        // Called directly without a queue: wrapping the call in a closure for `run` would allocate.
        if let queue { queue.async { [completion] in completion(result) } } else { completion(result) }
    }

    /// Counts and times the final answer, and logs it.
    private func record(_ result: Result<ImageLoadResult, ImageError>) {
        guard let started else { return }
        let nanoseconds = (ContinuousClock.now - started).nanoseconds
        switch result {
        case .success(let answer):
            let source = answer.cacheType == .none ? "network" : answer.cacheType.rawValue
            if measuring { LoadMetricsRecorder.recordLoad(result: "success", source: source, nanoseconds: nanoseconds) }
            logger.debug(
                "load finished",
                metadata: [
                    "url": "\(operation.url)", "source": "\(source)",
                    "size": "\(answer.image.width)x\(answer.image.height)", "ms": "\(nanoseconds / 1_000_000)",
                ])
        case .failure(let error):
            if measuring {
                LoadMetricsRecorder.recordLoad(
                    result: error == .cancelled ? "cancelled" : "failure", source: "none",
                    nanoseconds: nanoseconds)
            }
            logger.debug("load failed", metadata: ["url": "\(operation.url)", "error": "\(error)"])
        }
    }

    func intermediate(_ result: ImageLoadResult) {
        guard operation.canDeliver else { return }
        run { completion(.success(result)) }
    }

    func progress(_ handler: LoadProgressHandler?, _ progress: LoadProgress) {
        guard let handler, operation.canDeliver else { return }
        run { handler(progress) }
    }

    private func run(_ body: @escaping @Sendable () -> Void) {
        if let queue { queue.async(execute: body) } else { body() }
    }
}
