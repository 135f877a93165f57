internal import CCurl
import Foundation
import Logging
import WebImageCore

/// Downloads images over HTTP and HTTPS with libcurl (SDWebImage's `SDWebImageDownloader`), built for
/// servers: many concurrent transfers on one event thread, and hostile servers kept in check.
///
/// One libcurl multi handle, driven by one thread, runs every transfer. Requests wait in a queue
/// (priority, then hosts in turn, then FIFO or LIFO within a host) for one of
/// ``maxConcurrentDownloads`` slots, at most ``HTTPLoaderConfiguration/maxConnectionsPerHost`` per
/// host; identical requests share one transfer; connections are reused and HTTP/2 multiplexed; bodies
/// are capped in size; redirects go only to http and https. ``HTTPLoaderConfiguration/server`` sets it
/// up for servers that fetch strangers' URLs.
///
/// ```swift
/// ImageLoadersManager.shared.addLoader(HTTPLoader())
/// let image = try await ImageManager.shared.image(for: URL(string: "https://example.com/a.png")!)
/// ```
///
/// Progress handlers and completions run on the loader's event thread: keep them short, or hop to
/// another queue (`ImageManager` does).
public final class HTTPLoader: ImageLoader {
    /// The settings the loader was made with.
    public let configuration: HTTPLoaderConfiguration
    /// Where the loader logs, at `debug` (transfers started and finished with status, bytes and timing;
    /// retries and their reason; refusals by the address guard, the queue or a redirect; TLS failures)
    /// and `trace` (requests queued). A request's `ImageContext/logger` wins for what concerns its
    /// transfer.
    public let logger: Logger
    let scheduler: TransferScheduler
    private let builder: RequestBuilder
    private let broadcaster: EventBroadcaster

    /// A loader with `configuration`, logging to `logger` (`Logger(label: "SwiftWebImage.HTTPLoader")` by
    /// default; the library never bootstraps logging); starts its event thread.
    ///
    /// When the system refuses a new thread (a process or container at its thread limit), the loader
    /// is still made, and every request fails at once with ``HTTPLoaderFailure/network(curlCode:)``
    /// (libcurl's `CURLE_FAILED_INIT`) saying why, instead of waiting for a thread that never runs.
    public convenience init(
        configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration(),
        logger: Logger = Logger(label: "SwiftWebImage.HTTPLoader")
    ) {
        self.init(configuration: configuration, logger: logger, startThread: EventThread.start)
    }

    /// A loader whose event thread is started by `startThread` (which returns 0 or an `errno`); tests
    /// use it to see a refused thread.
    init(
        configuration: HTTPLoaderConfiguration, logger: Logger = Logger(label: "SwiftWebImage.HTTPLoader"),
        startThread: (@escaping @Sendable () -> Void) -> Int32
    ) {
        self.configuration = configuration
        self.logger = logger
        broadcaster = EventBroadcaster()
        scheduler = TransferScheduler(configuration: configuration, events: broadcaster)
        builder = RequestBuilder(configuration: configuration)
        let scheduler = self.scheduler
        let failure = startThread {
            CurlMultiLoop(scheduler: scheduler, configuration: configuration, logger: logger).run()
        }
        if failure != 0 {
            let reason = String(cString: strerror(failure))
            scheduler.refuseAll(
                .httpLoader(
                    .network(curlCode: Int(CURLE_FAILED_INIT.rawValue)),
                    message: "the loader could not start its event thread: \(reason)"))
            // Shut down already, so it frees libcurl's handles and returns at once.
            CurlMultiLoop(scheduler: scheduler, configuration: configuration, logger: logger).run()
        }
    }

    /// Stops the event thread; transfers still running end and their callers get `.cancelled`.
    deinit { scheduler.shutdown() }

    /// Registers a default HTTP loader with the shared loaders manager.
    public static func register() {
        ImageLoadersManager.shared.addLoader(HTTPLoader())
    }

    /// Transfers running at once; changing it takes effect at once (more start, or fewer as running
    /// ones finish). Starts at the configuration's value, 18 by default.
    public var maxConcurrentDownloads: Int {
        get { scheduler.maxConcurrentDownloads }
        set { scheduler.maxConcurrentDownloads = newValue }
    }

    /// Order of waiting requests of the same priority; changing it applies to requests already waiting.
    public var executionOrder: HTTPLoaderConfiguration.ExecutionOrder {
        get { scheduler.executionOrder }
        set { scheduler.executionOrder = newValue }
    }

    /// Transfers alive now: waiting, running, waiting to retry, or being torn down after a cancel.
    /// Zero once everything has ended; tests use it to prove nothing leaks.
    public var liveTransferCount: Int { scheduler.liveTransferCount }

    /// A stream of every transfer's events (started, response received, finished with metrics) from
    /// now on. Ends when the loader goes away or the consumer stops iterating.
    public func events() -> AsyncStream<HTTPDownloadEvent> { broadcaster.stream() }

    /// The `Accept` header sent now, from the registered coders' formats.
    public var acceptHeader: String { builder.acceptHeader() }

    /// Whether `url` is http or https: the only schemes this loader sends (and follows redirects to).
    public func canRequestImage(for url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Starts (or joins) the download of `url` for `ImageManager`; the returned operation is this
    /// caller's ``HTTPDownloadToken``. Failures before anything is queued (a refused or invalid request,
    /// a full queue) complete at once and return a finished operation.
    public func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        switch download(url, options: options, context: context, progress: progress, completion: completion) {
        case .success(let token): return token
        case .failure(let error):
            completion(.failure(error))
            return FinishedOperation()
        }
    }

    /// Starts (or joins) the download of `url`, returning this caller's token, or the error that stopped
    /// it before anything was queued (a refused or invalid request, a full queue). `completion` runs
    /// exactly once unless the token is cancelled first.
    public func download(
        _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    )
        -> Result<HTTPDownloadToken, ImageError>
    {
        let request: PreparedRequest
        switch builder.prepare(url: url, options: options, context: context) {
        case .success(let prepared): request = prepared
        case .failure(let error):
            (context.logger ?? logger).debug(
                "request refused",
                metadata: [
                    "url": "\(url)", "error": "\(error)",
                ])
            return .failure(error)
        }
        let decryptor = context.downloadDecryptor ?? configuration.decryptor
        // Partial images of encrypted bytes would be noise: progressive decoding needs plain bytes.
        let wantsPartial = options.contains(.progressiveLoad) && progress != nil && decryptor == nil
        var partial: PartialImageSource? = nil
        if wantsPartial {
            let coder = context.imageCoder as? any ProgressiveImageCoder ?? configuration.coders
            partial = PartialImageSource(coder: coder, options: context.decodeOptions(for: options, url: url))
        }
        let interval = UInt64(max(0, context.minimumProgressInterval) * 1_000_000_000)
        let responseModifier = context.responseModifier ?? configuration.responseModifier
        let queued = scheduler.enqueue(request, priority: TransferPriority(options), partialImages: partial) { token in
            Subscriber(
                token: token, progress: progress, completion: completion, wantsPartialImages: wantsPartial,
                progressInterval: interval, responseModifier: responseModifier, decryptor: decryptor)
        }
        let logger = request.logger ?? self.logger
        switch queued {
        case .success(let token):
            logger.trace("request queued", metadata: ["url": "\(request.url)", "transfer": "\(token.transferID)"])
        case .failure(let error):
            logger.debug("request refused", metadata: ["url": "\(request.url)", "error": "\(error)"])
        }
        return queued
    }

    /// Blocks URLs whose failure will repeat: the statuses in
    /// ``HTTPLoaderConfiguration/failedURLStatusCodes`` (404, 410 and a few more that say the resource
    /// is bad), bad data, unsupported formats. Never 5xx, 408, 429, cancellation, timeouts, DNS or
    /// connection failures, size limits, refusals or "not modified".
    public func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        if case .invalidStatusCode(let code) = error { return configuration.failedURLStatusCodes.contains(code) }
        return ImageError.isPermanentFailure(error)
    }
}
