import Foundation
import Logging
import Metrics
import Synchronization
import Tracing

/// The load flow described in Sources/Core/WebImageCore.docc/Architecture.md, steps 3 to 7, run in one
/// task per operation.
extension ImageManager {
    func run(_ request: LoadRequest, delivery: Delivery, progress: LoadProgressHandler?) async {
        await traced("webimage.load", tracing: request.tracing) { span in
            if span.isRecording {
                span.attributes["webimage.url.scheme"] = request.url.scheme ?? ""
                span.attributes["webimage.url.host"] = request.url.host ?? ""
            }
            request.logger.debug("load started", metadata: ["url": "\(request.url)", "key": "\(request.key)"])
            await runSteps(request, delivery: delivery, progress: progress)
        }
    }

    private func runSteps(_ request: LoadRequest, delivery: Delivery, progress: LoadProgressHandler?) async {
        var request = request
        let url = request.url
        let options = request.options

        // 3. The cache, unless the caller wants the loader only.
        var cached: CacheQueryResult? = nil
        if !options.contains(.fromLoaderOnly) {
            cached = await traced("webimage.cache.query", tracing: request.tracing) { span in
                let answer = await queryCache(request)
                if span.isRecording { span.attributes["webimage.cache.result"] = answer?.cacheType.rawValue ?? "miss" }
                return answer
            }
            if Task.isCancelled { return }
        }
        if let cached, !options.contains(.refreshCached) {
            delivery.finish(
                .success(
                    ImageLoadResult(
                        image: cached.image, data: cached.data,
                        cacheType: cached.cacheType, url: url)))
            return
        }

        // 4. Download only if allowed.
        if let veto = downloadVeto(request) {
            if let cached {
                delivery.finish(
                    .success(
                        ImageLoadResult(
                            image: cached.image, data: cached.data,
                            cacheType: cached.cacheType, url: url)))
            } else {
                delivery.finish(.failure(veto))
            }
            return
        }
        if let cached {
            // refreshCached: answer with what we have, then revalidate.
            delivery.intermediate(
                ImageLoadResult(
                    image: cached.image, data: cached.data, cacheType: cached.cacheType,
                    url: url, isFinal: false))
            var context = request.context
            context.loaderCachedImage = cached.image
            context.cacheValidators = cached.validators
            request = request.with(context: context)
        }

        let outcome = await traced("webimage.download", tracing: request.tracing, ofKind: .client) { span in
            let outcome = await load(request, delivery: delivery, progress: progress)
            switch outcome {
            case .success(let loaded):
                if span.isRecording { span.attributes["webimage.download.bytes"] = loaded.data.count }
                if request.measuring { LoadMetricsRecorder.recordDownload(result: "success", bytes: loaded.data.count) }
                request.logger.debug("downloaded", metadata: ["url": "\(url)", "bytes": "\(loaded.data.count)"])
            case .failure(.cacheNotModified):
                if request.measuring { LoadMetricsRecorder.recordDownload(result: "not_modified", bytes: 0) }
                request.logger.debug("not modified", metadata: ["url": "\(url)"])
            case .failure(let error):
                span.recordError(error)
                if request.measuring { LoadMetricsRecorder.recordDownload(result: "failure", bytes: 0) }
                request.logger.debug("download failed", metadata: ["url": "\(url)", "error": "\(error)"])
            }
            return outcome
        }
        if Task.isCancelled { return }

        switch outcome {
        case .failure(.cacheNotModified) where cached != nil:
            // 304: the cached copy is current; keep it.
            let cached = cached!
            delivery.finish(
                .success(
                    ImageLoadResult(
                        image: cached.image, data: cached.data,
                        cacheType: cached.cacheType, url: url)))
        case .failure(let error):
            // 5. Failure: report, and block the URL when the loader says retrying is pointless.
            fail(request, error: error, delivery: delivery)
        case .success(let loaded):
            if options.contains(.retryFailed) { removeFailedURL(url) }
            let decoded: Image
            if let image = loaded.image {
                decoded = image
            } else {
                do {
                    decoded = try decode(loaded.data, request: request)
                } catch {
                    fail(request, error: error, delivery: delivery)
                    return
                }
            }
            if Task.isCancelled { return }
            // 6. Store the original, transform, store the result, answer.
            await finishDownload(request, image: decoded, loaded: loaded, delivery: delivery)
        }
    }

    /// Decodes downloaded bytes with the request's coder, and fits the result to the thumbnail size.
    private func decode(_ data: Data, request: LoadRequest) throws(ImageError) -> Image {
        let custom = request.context.imageCoder
        let decodeOptions = request.context.decodeOptions(for: request.options, url: request.url)
        let decoded: Result<Image, ImageError> = traced("webimage.decode", tracing: request.tracing) { span in
            let result = Result { () throws(ImageError) -> Image in
                if let custom { return try custom.decode(data, options: decodeOptions) }
                return try coders.decode(data, options: decodeOptions, measuring: request.measuring)
            }
            switch result {
            case .success(let image):
                if span.isRecording { span.attributes["webimage.image.format"] = image.format.identifier }
            case .failure(let error): span.recordError(error)
            }
            return result
        }
        let image = try decoded.get()
        let fitted = decodeOptions.enforcingOutputSize(image)
        if fitted.width != image.width || fitted.height != image.height {
            request.logger.debug(
                "coder ignored the thumbnail size; fitted its image",
                metadata: [
                    "url": "\(request.url)", "decoded": "\(image.width)x\(image.height)",
                    "fitted": "\(fitted.width)x\(fitted.height)",
                ])
        }
        return fitted
    }

    private func fail(_ request: LoadRequest, error: ImageError, delivery: Delivery) {
        if error != .cancelled && request.loader.shouldBlockFailedURL(request.url, error: error) {
            addFailedURL(request.url)
        }
        delivery.finish(.failure(error))
    }

    private func queryCache(_ request: LoadRequest) async -> CacheQueryResult? {
        let queryType = request.context.queryCacheType
        if queryType != .none {
            let hit = await request.cache.queryImage(
                forKey: request.key, options: request.options,
                context: request.context, cacheType: queryType)
            if request.measuring {
                LoadMetricsRecorder.recordCacheLookup(
                    tier: hit?.cacheType.rawValue ?? queryType.rawValue, hit: hit != nil)
            }
            request.logger.trace(
                "cache lookup",
                metadata: [
                    "key": "\(request.key)", "result": "\(hit?.cacheType.rawValue ?? "miss")",
                ])
            if let hit { return hit }
        }
        // A transformed image missing from the cache can be made from the cached original.
        guard let transformer = request.transformer, request.key != request.originalKey,
            request.context.originalQueryCacheType != .none,
            let original = await request.cache.queryImage(
                forKey: request.originalKey, options: request.options,
                context: request.context,
                cacheType: request.context.originalQueryCacheType)
        else { return nil }
        let transformed = transform(original.image, with: transformer, request: request)
        if transformed.transformed && request.context.storeCacheType != .none {
            try? await request.cache.store(
                transformed.image, data: nil, validators: original.validators,
                forKey: request.key, cacheType: request.context.storeCacheType,
                context: request.context)
        }
        return CacheQueryResult(
            image: transformed.image, data: transformed.transformed ? nil : original.data,
            cacheType: original.cacheType, validators: original.validators)
    }

    private func downloadVeto(_ request: LoadRequest) -> ImageError? {
        if request.options.contains(.fromCacheOnly) {
            return .downloadNotAllowed(reason: "not in the cache and fromCacheOnly is set")
        }
        if let hook = request.shouldDownload, !hook(request.url) {
            return .downloadNotAllowed(
                reason: "the manager's shouldDownload hook refused \(request.url.absoluteString)")
        }
        if !request.loader.canRequestImage(for: request.url) {
            return .invalidURL("no loader handles \(request.url.absoluteString)")
        }
        return nil
    }

    private func transform(
        _ image: Image, with transformer: any ImageTransformer,
        request: LoadRequest
    ) -> (image: Image, transformed: Bool) {
        if image.isAnimated && !request.options.contains(.transformAnimatedImage) { return (image, false) }
        let started = ContinuousClock.now
        let output = traced("webimage.transform", tracing: request.tracing) { span in
            if span.isRecording { span.attributes["webimage.transformer"] = transformer.transformerKey }
            return transformer.transform(image, forKey: request.key)
        }
        let elapsed = ContinuousClock.now - started
        if request.measuring {
            LoadMetricsRecorder.recordTransform(animated: image.isAnimated, nanoseconds: elapsed.nanoseconds)
        }
        request.logger.debug(
            "transformed",
            metadata: [
                "key": "\(request.key)", "transformer": "\(transformer.transformerKey)",
                "result": "\(output == nil ? "kept the original" : "transformed")",
                "ms": "\(elapsed.nanoseconds / 1_000_000)",
            ])
        guard let output else { return (image, false) }
        return (output, true)
    }

    private func finishDownload(_ request: LoadRequest, image: Image, loaded: LoadedImage, delivery: Delivery) async {
        let url = request.url
        let validators = loaded.response?.validators
        let originalData = request.serializer?.cacheData(for: image, originalData: loaded.data, url: url) ?? loaded.data
        var final = image
        var finalData: Data? = originalData
        var stores: [@Sendable () async -> Void] = []
        let cache = request.cache
        let context = request.context

        if let transformer = request.transformer {
            let result = transform(image, with: transformer, request: request)
            if result.transformed {
                final = result.image
                finalData = request.serializer?.cacheData(for: final, originalData: nil, url: url)
                let originalType = context.originalStoreCacheType
                if originalType != .none {
                    let key = request.originalKey
                    stores.append {
                        try? await cache.store(
                            image, data: originalData, validators: validators, forKey: key,
                            cacheType: originalType, context: context)
                    }
                }
            }
        }
        let storeType = context.storeCacheType
        let waits = request.options.contains(.waitStoreCache)
        // Without waitStoreCache the memory level is still filled before the answer (as SDWebImage
        // does), so a load that follows this one's answer hits memory; slower levels fill behind it.
        let memoryFirst = storeType.includesMemory && !waits
        if memoryFirst {
            try? await cache.store(
                final, data: nil, validators: validators, forKey: request.key,
                cacheType: .memory, context: context)
        }
        let backgroundType: ImageCacheType = memoryFirst ? (storeType.includesDisk ? .disk : .none) : storeType
        if backgroundType != .none {
            let key = request.key
            let storedImage = final
            let storedData = finalData
            stores.append {
                try? await cache.store(
                    storedImage, data: storedData, validators: validators, forKey: key,
                    cacheType: backgroundType, context: context)
            }
        }
        let pendingStores = stores
        let tracing = request.tracing
        let storeAll: @Sendable () async -> Void = {
            await traced("webimage.cache.store", tracing: tracing) { _ in for store in pendingStores { await store() } }
        }
        if waits {
            await storeAll()
        } else if !pendingStores.isEmpty {
            // Stores outlive the caller's interest: a cancelled caller still fills the cache.
            Task { await storeAll() }
        }
        // 7. The one final answer.
        delivery.finish(.success(ImageLoadResult(image: final, data: loaded.data, cacheType: .none, url: url)))
    }

    /// Runs the loader request as an async call that follows the task's cancellation.
    private func load(
        _ request: LoadRequest, delivery: Delivery,
        progress: LoadProgressHandler?
    ) async -> Result<LoadedImage, ImageError> {
        var forward: LoadProgressHandler? = nil
        if progress != nil { forward = { p in delivery.progress(progress, p) } }
        return await request.loader.load(
            request.url, options: request.options, context: request.context, progress: forward)
    }
}
