import Foundation
import Logging
import WebImage
import WebImageRedisCache
import WebImageSVGCoder
import WebImageTransformers

/// Answers processing URLs: checks the signature and the source, finds the answer in the result cache
/// or makes it (fetch, decode, transform, encode) in a bounded worker slot under a deadline.
final class ImageService: Sendable {
    let configuration: ServerConfiguration
    let signer: URLSigner
    let allowList: SourceAllowList
    /// Worker slots: decode, transform and encode (CPU).
    let gate: ProcessingGate
    /// Download slots: source fetches (network), so a stalled origin costs waiting, not a worker.
    let downloads: ProcessingGate
    let negotiation: FormatNegotiation
    let resultCache: ResultCache
    let fetcher: SourceFetcher
    let coders: ImageCodersManager
    let metrics: ServerMetrics
    let logger: Logger
    let watermark: Image?
    /// `IMGPROXY_WATERMARK_URL`'s image, fetched when first asked for (nil with a data or file watermark).
    let watermarkSource: FallbackImage?

    init(configuration: ServerConfiguration, coders: ImageCodersManager, metrics: ServerMetrics, logger: Logger) throws
    {
        self.configuration = configuration
        self.coders = coders
        self.metrics = metrics
        self.logger = logger
        signer = URLSigner(keyPairs: configuration.signingKeys, signatureSize: configuration.signatureSize)
        allowList = SourceAllowList(configuration.allowedSources)
        gate = ProcessingGate(
            slots: configuration.workers, queueLimit: configuration.queueSize,
            onQueueDepth: { [metrics] depth in metrics.recordQueueDepth(depth) })
        downloads = ProcessingGate(
            slots: configuration.downloadConcurrency,
            queueLimit: configuration.downloadConcurrency * Self.queuedDownloadsPerSlot,
            perKeySlots: configuration.downloadsPerOrigin,
            perKeyQueueLimit: configuration.downloadsPerOrigin * Self.queuedDownloadsPerSlot)
        negotiation = FormatNegotiation(configuration: configuration, coders: coders)
        resultCache = try ResultCache(
            memoryLimit: configuration.resultMemoryLimit,
            directory: configuration.resultCacheDirectory,
            diskLimit: configuration.resultDiskLimit,
            redis: try Self.redisTier(
                configuration.resultRedisURLs,
                timeout: configuration.resultRedisTimeout, spinMicroseconds: configuration.resultRedisSpinMicroseconds))
        fetcher = SourceFetcher(configuration: configuration, coders: coders, metrics: metrics)
        // imgproxy's order: IMGPROXY_WATERMARK_DATA, then IMGPROXY_WATERMARK_PATH.
        if let data = try configuration.watermarkData
            ?? configuration.watermarkPath.map({ try Data(contentsOf: URL(fileURLWithPath: $0)) })
        {
            watermark = try coders.decode(data, options: DecodeOptions(maxPixelCount: configuration.maxSourcePixels))
        } else {
            watermark = nil
        }
        watermarkSource =
            watermark == nil
            ? configuration.watermarkURL.map { FallbackImage(origin: .url($0), status: nil, ttl: nil) } : nil
    }

    /// Stands in for a watermark not fetched yet while a URL's options are checked before any fetch.
    static let placeholderWatermark = Image(
        pixels: PixelBuffer(width: 1, height: 1, layout: .rgba8, bytes: [0, 0, 0, 0]))

    /// What the HTTP layer sends back.
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data
    }

    /// Answers the request target `target` (path and query as sent) with the client's `Accept`,
    /// `If-None-Match` and client-hint headers.
    func answer(
        target: String, accept: String?, ifNoneMatch: String?, ifModifiedSince: String? = nil,
        hints: ClientHints = ClientHints()
    ) async -> Answer {
        let started = ContinuousClock.now
        let answer: Answer
        var format = "none"
        do {
            let (rendered, varies, request) = try await render(target: target, accept: accept, hints: hints)
            format = rendered.contentType.split(separator: "/").last.map(String.init) ?? "none"
            var headers = cacheHeaders(rendered, request)
            let tagged = configuration.usesETag && request.fallback == nil
            // IMGPROXY_ETAG_BUSTER: a new buster gives every answer a new tag, so clients revalidate all.
            let etag =
                configuration.etagBuster.isEmpty
                ? rendered.etag
                : RenderedImage.etag(of: Data((configuration.etagBuster + "\u{0}" + rendered.etag).utf8))
            if tagged { headers.append(("ETag", etag)) }
            let lastModified = configuration.usesLastModified ? rendered.originHeaders.lastModified : nil
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
            if !varies.isEmpty { headers.append(("Vary", varies)) }
            if configuration.setsCanonicalHeader,
                ["http", "https"].contains(request.sourceURL.scheme?.lowercased() ?? "")
            {
                headers.append(("Link", "<\(request.sourceURL.absoluteString)>; rel=\"canonical\""))
            }
            let notModified =
                tagged && ifNoneMatch.map { Self.matches($0, etag: etag) } == true
                || ifNoneMatch == nil && Self.notModifiedSince(ifModifiedSince, lastModified: lastModified)
            if notModified {
                answer = Answer(status: 304, headers: headers, body: Data())
            } else {
                headers.append(("Content-Type", rendered.contentType))
                headers.append(
                    (
                        "Content-Disposition",
                        request.contentDisposition(
                            sourceURL: request.sourceURL,
                            fileExtension: format == "jpeg" ? "jpg" : format)
                    ))
                answer = Answer(status: request.fallback?.status ?? 200, headers: headers, body: rendered.data)
            }
        } catch let failure as ServerFailure {
            answer = Self.failureAnswer(failure)
        } catch is ProcessingGate.Overloaded {
            answer = Self.failureAnswer(.overloaded)
        } catch let error as ImageError {
            answer = Self.failureAnswer(ServerFailure(error))
        } catch {
            answer = Self.failureAnswer(ServerFailure(status: 504, "cancelled: \(error)"))
        }
        metrics.countRequest(status: answer.status, format: format)
        let level: Logger.Level = answer.status >= 500 ? .warning : (answer.status >= 400 ? .notice : .info)
        logger.log(
            level: level, "image request",
            metadata: [
                "status": "\(answer.status)", "format": "\(format)", "bytes": "\(answer.body.count)",
                "ms": "\((ContinuousClock.now - started).milliseconds)",
                "path": "\(target.prefix(Self.loggedPathLength))",
            ])
        return answer
    }

    /// Downloads waiting for a slot, per slot, before the server answers 503: waiting downloads hold
    /// only a task each.
    static let queuedDownloadsPerSlot = 4

    /// Whether `options` set one of imgproxy's security options (per-request limits).
    static func usesSecurityOptions(_ options: ProcessingOptions) -> Bool {
        options.maxSourceResolution != nil || options.maxSourceFileSize != nil || options.maxAnimationFrames != nil
            || options.maxAnimationFrameResolution != nil || options.maxResultDimension != nil
    }

    /// An option segment's name as written (`rs` of `rs:fit:10:10`).
    static func optionName(_ segment: Substring) -> String {
        String(segment.prefix { $0 != ":" })
    }

    /// The origin of a source URL (scheme, host, port), the key of its share of the download slots.
    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port.map(String.init) ?? "")"
    }

    /// Characters of a request path kept in a log line: enough to tell requests apart, not a log flood.
    static let loggedPathLength = 200

    /// The Redis tier of the result cache for `urls` (nil when there are none), under a namespace of the
    /// server's own so a fleet's instances share results and nothing else; `timeout` (seconds) bounds
    /// every wait on Redis, and each wait for a reply spins for up to `spinMicroseconds` first.
    static func redisTier(_ urls: [String], timeout: Double, spinMicroseconds: Int = 200) throws -> RedisCache? {
        guard !urls.isEmpty else { return nil }
        do {
            var configuration = try RedisCacheConfiguration(urls: urls)
            configuration.namespace = "webimage-server-results"
            let limit = max(.milliseconds(1), Duration.seconds(min(timeout, 86_400)))
            configuration.connectTimeout = limit
            configuration.readTimeout = limit
            configuration.writeTimeout = limit
            configuration.poolWaitTimeout = limit
            configuration.replySpin = .microseconds(spinMicroseconds)
            return RedisCache(configuration: configuration)
        } catch {
            throw ConfigurationError(
                name: "WEBIMAGE_SERVER_REDIS_URL", value: urls.joined(separator: ","),
                expected: "redis:// URLs (\(error))")
        }
    }

    static func failureAnswer(_ failure: ServerFailure) -> Answer {
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-cache")]
        if let retryAfter = failure.retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return Answer(status: failure.code, headers: headers, body: Data((failure.message + "\n").utf8))
    }

    /// `date` as HTTP writes it (IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String { HTTPDate.string(date) }

    /// What an answer's headers need to know of its request beyond the image.
    struct RequestFacts: Sendable {
        var sourceURL: URL
        var response: ResponseOptions
        /// Set when the answer was made from the fallback image.
        var fallback: FallbackImage.Use?

        func contentDisposition(sourceURL: URL, fileExtension: String) -> String {
            response.contentDisposition(sourceURL: sourceURL, fileExtension: fileExtension)
        }
    }

    /// `Cache-Control` and `Expires` of an answer, as imgproxy sets them: the fallback image's TTL, or the
    /// `expires` option's time when sooner than the TTL, or (with `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`) the
    /// source's `Cache-Control` as it is or its `Expires`, else the TTL; a TTL of 0 is `no-cache`.
    private func cacheHeaders(
        _ rendered: RenderedImage, _ request: RequestFacts, now: Date = Date()
    ) -> [(String, String)] {
        var ttl = request.fallback?.ttl
        if let expires = request.response.expires {
            let left = max(0, expires - Int(now.timeIntervalSince1970))
            if ttl.map({ left < $0 }) ?? true { ttl = min(configuration.cacheTTL, left) }
        }
        if ttl == nil, configuration.cacheControlPassthrough {
            if let cacheControl = rendered.originHeaders.cacheControl, !cacheControl.isEmpty {
                return [("Cache-Control", cacheControl)]
                    + (rendered.originHeaders.expires.map { [("Expires", $0)] } ?? [])
            }
            if let expires = rendered.originHeaders.expires.flatMap(Self.parseHTTPDate) {
                ttl = max(0, Int(expires.timeIntervalSince(now)))
            }
        }
        let seconds = ttl ?? configuration.cacheTTL
        guard seconds > 0 else { return [("Cache-Control", "no-cache")] }
        return [
            ("Cache-Control", "max-age=\(seconds), public"),
            ("Expires", Self.httpDate(now.addingTimeInterval(Double(seconds)))),
        ]
    }

    /// Whether an `If-Modified-Since` date is at or after `lastModified` (both HTTP dates).
    static func notModifiedSince(_ ifModifiedSince: String?, lastModified: String?) -> Bool {
        guard let since = ifModifiedSince.flatMap(parseHTTPDate), let modified = lastModified.flatMap(parseHTTPDate)
        else {
            return false
        }
        return modified <= since
    }

    /// An HTTP date (IMF-fixdate) read back; nil when it is not one.
    static func parseHTTPDate(_ text: String) -> Date? { HTTPDate.date(text) }

    /// Whether an `If-None-Match` value names `etag` (a list, `*`, or weak forms of it).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// The encoded answer, the request headers it depends on (`Vary`), and what its headers need of the request.
    private func render(
        target: String, accept: String?, hints: ClientHints
    ) async throws -> (RenderedImage, varies: String, RequestFacts) {
        let path: ImageURLPath
        do { path = try ImageURLPath(target, conventions: configuration.urlConventions) } catch {
            throw ServerFailure(status: 404, "not a processing URL: \(error.reason)")
        }
        guard
            configuration.trustedSignatures.contains(String(path.signature))
                || signer.verify(signature: path.signature, path: path.signedPart)
        else {
            throw ServerFailure(status: 403, "invalid signature")
        }
        // imgproxy's status: a source outside the allow-list is "not found".
        guard allowList.allows(path.sourceURL) else {
            throw ServerFailure(status: 404, "source URL not allowed: \(path.sourceURL.absoluteString)")
        }
        if !configuration.allowedProcessingOptions.isEmpty,
            let refused = path.optionSegments.first(where: {
                !configuration.allowedProcessingOptions.contains(Self.optionName($0))
            })
        {
            // imgproxy's answer to an option outside IMGPROXY_ALLOWED_PROCESSING_OPTIONS; presets may use any.
            throw ServerFailure(status: 404, "invalid processing options: \(Self.optionName(refused)) is not allowed")
        }
        // Client hints are defaults: the URL's own options (and presets) come after them and win.
        let hinted = configuration.readsClientHints ? hints.segments : []
        let response = try ResponseOptions(
            segments: hinted + (try configuration.presets.expand(path.optionSegments)),
            returnsAttachment: configuration.returnsAttachment)
        if response.hasExpired() { throw ServerFailure(status: 404, "the URL has expired") }
        var parsedPlan: ProcessingPlan
        do {
            // The URL's extension asks for what `f:` asks for (JPEG output flattened onto the background).
            let formatSegment = path.extensionFormat.map { [Substring("f:" + $0.identifier)] } ?? []
            parsedPlan = try ProcessingPlan(
                segments: response.remaining + formatSegment,
                watermarkOpacity: configuration.watermarkOpacity)
            // Every option's range is checked here, by the transformers that will apply it, so a value
            // the parser took but a transformer refuses is refused now, not a 500 after the fetch.
            _ = try parsedPlan.makeTransformer(
                watermark ?? (watermarkSource == nil ? nil : Self.placeholderWatermark), { false })
        } catch {
            // imgproxy answers options it cannot read with 404, as it does any invalid URL.
            throw ServerFailure(status: 404, "invalid processing options: \(error)")
        }
        if let options = parsedPlan.options, Self.usesSecurityOptions(options), !configuration.allowsSecurityOptions {
            // imgproxy's answer to per-request limits without IMGPROXY_ALLOW_SECURITY_OPTIONS.
            throw ServerFailure(status: 403, "security processing options are not allowed")
        }
        if configuration.maxResultDimension > 0, parsedPlan.options?.maxResultDimension == nil {
            // IMGPROXY_MAX_RESULT_DIMENSION is the default of `mrd`: the same limit, applied by the same step.
            do {
                let formatSegment = path.extensionFormat.map { [Substring("f:" + $0.identifier)] } ?? []
                parsedPlan = try ProcessingPlan(
                    segments: response.remaining + formatSegment
                        + [Substring("mrd:\(configuration.maxResultDimension)")],
                    watermarkOpacity: configuration.watermarkOpacity)
            } catch {
                throw ServerFailure(status: 404, "invalid processing options: \(error)")
            }
        }
        let plan = parsedPlan
        let decoding = SourceDecoding(plan, stripsColorProfile: configuration.stripsColorProfile)
        let explicitFormat = plan.format
        // `f:svg` is answered only for an SVG source (passed through), which is known once it is fetched.
        if let explicitFormat, explicitFormat != .svg, !coders.canEncode(to: explicitFormat) {
            throw ServerFailure(status: 422, "no encoder for \(explicitFormat.identifier)")
        }
        var facts = RequestFacts(sourceURL: path.sourceURL, response: response)
        let preference = negotiation.preference(accept: accept)
        let quality = plan.quality ?? configuration.defaultQuality
        let key = [
            plan.canonicalText, path.sourceURL.absoluteString,
            (explicitFormat?.identifier ?? "auto") + ":" + preference.key, "q\(quality)", response.cacheKeyPart,
        ]
        .joined(separator: "|")
        // As imgproxy: every answer varies with what may change it, whatever this URL asks.
        let varies =
            ((negotiation.dependsOnAccept ? ["Accept"] : [])
            + (configuration.readsClientHints ? ClientHints.headerNames : [])).joined(separator: ", ")

        if let (hit, tier) = resultCache.lookup(key) {
            metrics.countCacheLookup(tier: tier.rawValue)
            return (hit, varies, facts)
        }
        if resultCache.isEnabled { metrics.countCacheLookup(tier: "miss") }

        let timeout = Duration.milliseconds(Int(configuration.requestTimeout * 1000))
        let (rendered, fallback) = try await withDeadline(timeout) {
            [self] () async throws -> (RenderedImage, FallbackImage.Use?) in
            let fetchStarted = ContinuousClock.now
            // Memory first: a source held decoded or as bytes never waits behind downloads.
            let source: SourceFetcher.Fetched
            var fallback: FallbackImage.Use?
            if let inMemory = fetcher.cached(path.sourceURL, decoding: decoding) {
                source = inMemory
            } else {
                do {
                    source = try await downloads.run(key: Self.origin(of: path.sourceURL)) {
                        try await fetcher.fetch(path.sourceURL, decoding: decoding)
                    }
                } catch let error as ImageError {
                    guard let image = configuration.fallbackImage, error != .cancelled else { throw error }
                    source = .decoded(try await image.image(using: fetcher))
                    fallback = image.use(after: ServerFailure(error))
                    logger.warning(
                        "source unavailable: answering the fallback image",
                        metadata: [
                            "source": "\(path.sourceURL.absoluteString.prefix(Self.loggedPathLength))",
                            "error": "\(error)",
                        ])
                }
            }
            metrics.recordSourceFetch(ContinuousClock.now - fetchStarted)
            // Fetched, like the source, before a worker slot is taken: a download never holds a worker.
            let watermark = try await watermarkImage(for: plan)
            let rendered = try await gate.run {
                try await make(
                    plan: plan, source: source, watermark: watermark, sourceURL: path.sourceURL,
                    explicitFormat: explicitFormat,
                    preference: preference)
            }
            return (rendered, fallback)
        }
        // An answer made from the fallback image is never kept under the URL: the origin may be back.
        if fallback == nil { resultCache.store(rendered, forKey: key) }
        facts.fallback = fallback
        return (rendered, varies, facts)
    }

    /// The watermark `plan` asks for: the configured image, else the one at `IMGPROXY_WATERMARK_URL`
    /// (fetched on first use, then kept); nil when the plan has no `wm:`.
    private func watermarkImage(for plan: ProcessingPlan) async throws -> Image? {
        guard plan.wantsWatermark else { return nil }
        if let watermark { return watermark }
        return try await watermarkSource?.image(using: fetcher)
    }

    /// Decodes, transforms and encodes one answer from its fetched source (and watermark), in a worker slot.
    private func make(
        plan: ProcessingPlan, source: SourceFetcher.Fetched, watermark: Image?, sourceURL: URL,
        explicitFormat: ImageFormat?, preference: FormatNegotiation.Preference
    ) async throws -> RenderedImage {
        try Task.checkCancellation()
        let processStarted = ContinuousClock.now
        let frameResolutionLimit =
            plan.options?.maxAnimationFrameResolution ?? configuration.maxAnimationFrameResolution
        let (coders, negotiation, fetcher) = (self.coders, self.negotiation, self.fetcher)
        let (effort, defaultQuality, rowFilter) = (
            configuration.webpEffort, configuration.defaultQuality,
            configuration.pngRowFilter
        )
        let (formatQuality, stripsColorProfile) = (configuration.formatQuality, configuration.stripsColorProfile)
        let options = plan.options
        // `maf`, else IMGPROXY_MAX_ANIMATION_FRAMES: as imgproxy, a longer animation keeps its first frames.
        let frameLimit = options?.maxAnimationFrames ?? configuration.maxAnimationFrames
        if var unprocessed = try skipped(source, plan: plan, explicitFormat: explicitFormat) {
            unprocessed.originHeaders = fetcher.originHeaders(for: sourceURL)
            metrics.recordProcessing(ContinuousClock.now - processStarted)
            return unprocessed
        }
        // As imgproxy: SVG is never written, so `f:svg` for a source that is not passed through (a raster
        // one, or SVG with IMGPROXY_ALWAYS_RASTERIZE_SVG) is 422, after the source was fetched.
        if explicitFormat == .svg {
            throw ServerFailure(status: 422, "Resulting image format is not supported: svg")
        }
        let decodeCancellation = DecodeCancellation()
        var rendered = try await withTaskCancellationHandler {
            try await onWorkerThread { isCancelled throws(ImageError) -> RenderedImage in
                let image = try Self.firstFrames(
                    of: try fetcher.decode(source, cancellation: decodeCancellation),
                    limit: frameLimit)
                // `mafr`, else IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION.
                if case let limit = frameResolutionLimit, limit > 0, image.isAnimated,
                    Double(image.width * image.height) > limit * 1_000_000
                {
                    throw .imageTooLarge(width: image.width, height: image.height, limit: Int(limit * 1_000_000))
                }
                var output = image
                // The transformer asks `isCancelled` between steps and frames, so a request past its deadline
                // (already answered 504) or dropped by its client stops within one step of one frame.
                if let transformer = try plan.makeTransformer(watermark, isCancelled) {
                    do throws(ImageError) {
                        output = try transformer.transformed(image)
                    } catch {
                        if case .cancelled = error { throw error }
                        // Never the untransformed source under this URL: the options cannot be applied.
                        throw .invalidParameter(name: "processing options", reason: "\(error)")
                    }
                }
                // Past the deadline the answer is already a 504: do not spend the encode on it.
                if isCancelled() { throw .cancelled }
                let format = negotiation.outputFormat(
                    explicit: explicitFormat, preference: preference,
                    image: output, sourceFormat: image.format)
                // `q`, else `fq` for this format, else IMGPROXY_FORMAT_QUALITY's, else the server's quality.
                let quality =
                    options?.quality ?? options?.formatQuality[format] ?? formatQuality[format] ?? defaultQuality
                var encoding = EncodeOptions(quality: Double(quality) / 100)
                encoding.lossyEffort = effort
                encoding.rowFilter = rowFilter
                // A format that cannot hold an animation gets its first frame (never an APNG for `f:png`).
                encoding.firstFrameOnly = !FormatNegotiation.keepsAnimation(format)
                // `scp:0` keeps the source's ICC profile, `scp:1` drops it; without either,
                // IMGPROXY_STRIP_COLOR_PROFILE decides (dropped by default, as imgproxy does).
                encoding.keepsColorProfile = !(options?.stripColorProfile ?? stripsColorProfile)
                let data = try Self.encode(
                    output, as: format, options: encoding, maxBytes: options?.maxBytes ?? 0,
                    coders: coders, isCancelled: isCancelled)
                return RenderedImage(data: data, contentType: format.mimeType ?? "application/octet-stream")
            }
        } onCancel: {
            decodeCancellation.cancel()
        }
        rendered.originHeaders = fetcher.originHeaders(for: sourceURL)
        metrics.recordProcessing(ContinuousClock.now - processStarted)
        return rendered
    }
}

extension ImageService {
    /// The source as it is, for a format in `IMGPROXY_SKIP_PROCESSING_FORMATS` when the URL names no other
    /// format, and an SVG source (sanitised unless `IMGPROXY_SANITIZE_SVG` is off) unless the URL names a
    /// raster format or `IMGPROXY_ALWAYS_RASTERIZE_SVG` is on; nil: process it. A source met decoded (kept
    /// from an earlier request) is processed.
    func skipped(
        _ source: SourceFetcher.Fetched, plan: ProcessingPlan, explicitFormat: ImageFormat?
    ) throws(ImageError) -> RenderedImage? {
        guard case .encoded(let data, _, _) = source else { return nil }
        let format = ImageFormat.detect(data)
        if let limit = plan.options?.maxSourceFileSize, limit > 0, data.count > limit {
            throw .responseTooLarge(limit: limit)
        }
        // `raw`: the source as it came, whatever the rest of the URL says.
        if plan.options?.raw == true {
            return RenderedImage(data: data, contentType: format.mimeType ?? "application/octet-stream")
        }
        guard explicitFormat == nil || explicitFormat == format else { return nil }
        if format == .svg && !configuration.alwaysRasterizesSVG {
            let answer = configuration.sanitizesSVG ? try SVGSanitizer.sanitized(data) : data
            return RenderedImage(data: answer, contentType: ImageFormat.svg.mimeType ?? "image/svg+xml")
        }
        guard
            configuration.skipProcessingFormats.contains(format)
                || plan.options?.skipProcessingFormats.contains(format) == true
        else {
            return nil
        }
        return RenderedImage(data: data, contentType: format.mimeType ?? "application/octet-stream")
    }

    /// `image` encoded as `format`; with `maxBytes` (imgproxy's `max_bytes`), encoded again at lower
    /// qualities until the answer fits, as imgproxy does for its lossy formats (the smallest when none does).
    static func encode(
        _ image: Image, as format: ImageFormat, options: EncodeOptions, maxBytes: Int,
        coders: ImageCodersManager, isCancelled: () -> Bool
    ) throws(ImageError) -> Data {
        var data = try coders.encode(image, as: format, options: options)
        guard maxBytes > 0, lossyFormats.contains(format) else { return data }
        var quality = Int((options.quality * 100).rounded())
        while data.count > maxBytes, quality > 1, !isCancelled() {
            // imgproxy's steps: the further from the budget, the bigger the cut.
            let over = Double(data.count) / Double(maxBytes)
            quality = max(1, Int(Double(quality) * (over > 3 ? 0.25 : over > 1.5 ? 0.5 : 0.75)))
            var smaller = options
            smaller.quality = Double(quality) / 100
            data = try coders.encode(image, as: format, options: smaller)
        }
        return data
    }

    /// `image` cut to its first `limit` frames when it has more, as imgproxy loads at most
    /// `max_animation_frames` pages of an animation instead of refusing it; only those frames are composed.
    static func firstFrames(of image: Image, limit: Int) throws(ImageError) -> Image {
        guard let animation = image.animation, limit >= 1, animation.frameCount > limit else { return image }
        var frames: [ImageFrame] = []
        frames.reserveCapacity(limit)
        for index in 0..<limit {
            do { frames.append(try animation.frame(at: index)) } catch let error as ImageError { throw error } catch {
                throw .badImageData(reason: "frame \(index): \(error)")
            }
        }
        return Image(frames: frames, loopCount: animation.loopCount, format: image.format)
    }

    /// Formats `max_bytes` re-encodes at lower quality.
    static let lossyFormats: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, .jpegXL]
}

extension Duration {
    /// Whole milliseconds, for log lines.
    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
