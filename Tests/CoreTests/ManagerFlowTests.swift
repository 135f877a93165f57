import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageCore

@Suite("ImageManager load flow")
struct ManagerFlowTests {
    @Test func downloadDecodesStoresAndAnswersFromTheLoader() async throws {
        let h = Harness()
        let url = Harness.url("a.raw")
        h.loader.serve(RawImageCoder.solid(width: 3, height: 2), at: url)
        let result = try await h.manager.image(for: url, options: [.waitStoreCache])
        #expect(result.cacheType == .none)
        #expect(result.image.width == 3 && result.image.height == 2)
        #expect(result.isFinal)
        #expect(h.cache.memoryKeys() == [url.absoluteString])
        #expect(h.cache.diskKeys() == [url.absoluteString])
        // The second load is a memory hit and does not download again.
        let again = try await h.manager.image(for: url)
        #expect(again.cacheType == .memory)
        #expect(h.loader.requestCount == 1)
    }

    @Test func withoutWaitStoreCacheTheMemoryLevelIsFilledBeforeTheAnswer() async throws {
        let h = Harness()
        let url = Harness.url("fill.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        for _ in 0..<50 {
            _ = try await h.manager.image(for: url, options: [.fromLoaderOnly])
            // The answer came back; the memory level must already have it, the disk may follow later.
            #expect(h.cache.memoryKeys() == [url.absoluteString])
            #expect(try await h.manager.image(for: url).cacheType == .memory)
            await h.cache.clear(cacheType: .memory)
        }
    }

    @Test func memoryHitAnswersBeforeLoadImageReturns() async throws {
        let h = Harness()
        let url = Harness.url("m.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        _ = try await h.manager.image(for: url, options: [.waitStoreCache])
        let answers = Answers()
        let operation = h.manager.loadImage(with: url, completion: answers.handler)
        #expect(answers.all.count == 1)
        #expect(answers.all.first?.value?.cacheType == .memory)
        #expect(operation.isFinished)
    }

    @Test func invalidURLsFailWithInvalidURL() async {
        let h = Harness()
        let answers = Answers()
        h.manager.loadImage(with: nil, completion: answers.handler)
        h.manager.loadImage(with: URL(string: "relative/path"), completion: answers.handler)
        #expect(answers.all.count == 2)
        for answer in answers.all {
            guard case .invalidURL = answer.error else { Issue.record("expected invalidURL, got \(answer)"); continue }
        }
        #expect(h.loader.requestCount == 0)
    }

    @Test func failedURLIsBlockedUntilRetryFailed() async throws {
        let h = Harness()
        let url = Harness.url("broken.raw")
        h.loader.serve(Data("not an image".utf8), at: url)
        await #expect(throws: ImageError.unsupportedFormat(.undefined)) { try await h.manager.image(for: url) }
        #expect(h.manager.isFailedURL(url))
        await #expect(throws: ImageError.blockedURL(url)) { try await h.manager.image(for: url) }
        #expect(h.loader.requestCount == 1)

        h.loader.serve(RawImageCoder.solid(), at: url)
        let result = try await h.manager.image(for: url, options: [.retryFailed])
        #expect(result.image.width == 4)
        #expect(!h.manager.isFailedURL(url))
        #expect(h.loader.requestCount == 2)
    }

    @Test func transientFailuresDoNotBlockTheURL() async {
        let h = Harness()
        let url = Harness.url("flaky.raw")
        h.loader.fail(url, with: .timeout)
        await #expect(throws: ImageError.timeout) { try await h.manager.image(for: url) }
        let refused = ImageError.loadingFailed(LoadingFailure(message: "couldn't connect", isRetryable: true))
        h.loader.fail(url, with: refused)
        await #expect(throws: refused) { try await h.manager.image(for: url) }
        #expect(!h.manager.isFailedURL(url))
        #expect(h.loader.requestCount == 2)
    }

    @Test func fromCacheOnlyWithAMissNeverDownloads() async {
        let h = Harness()
        let url = Harness.url("c.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        await #expect(throws: ImageError.downloadNotAllowed(reason: "not in the cache and fromCacheOnly is set")) {
            try await h.manager.image(for: url, options: [.fromCacheOnly])
        }
        #expect(h.loader.requestCount == 0)
    }

    @Test func fromLoaderOnlySkipsTheCache() async throws {
        let h = Harness()
        let url = Harness.url("l.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        _ = try await h.manager.image(for: url, options: [.waitStoreCache])
        let result = try await h.manager.image(for: url, options: [.fromLoaderOnly])
        #expect(result.cacheType == .none)
        #expect(h.loader.requestCount == 2)
    }

    @Test func queryCacheTypeDiskSkipsMemory() async throws {
        let h = Harness()
        let url = Harness.url("q.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        _ = try await h.manager.image(for: url, options: [.waitStoreCache])
        var context = ImageContext()
        context.queryCacheType = .disk
        let result = try await h.manager.image(for: url, context: context)
        #expect(result.cacheType == .disk)
        context.queryCacheType = .none
        let fresh = try await h.manager.image(for: url, context: context)
        #expect(fresh.cacheType == .none)
    }

    @Test func refreshCachedAnswersTwiceAndKeepsTheCacheWhenNotModified() async throws {
        let h = Harness()
        let url = Harness.url("r.raw")
        h.loader.serve(RawImageCoder.solid(gray: 10), at: url, etag: "\"v1\"")
        _ = try await h.manager.image(for: url, options: [.waitStoreCache])
        let storesBefore = h.cache.stores.count

        let answers = Answers()
        h.manager.loadImage(with: url, options: [.refreshCached], completion: answers.handler)
        let first = try #require(await answers.next().value)
        let second = try #require(await answers.next().value)
        #expect(!first.isFinal && first.cacheType != .none)
        #expect(second.isFinal && second.cacheType == first.cacheType)
        #expect(second.image.pixels == first.image.pixels)
        // The revalidation sent the stored ETag, the server said "not modified", nothing was re-stored.
        #expect(h.loader.requests.last?.validators?.etag == "\"v1\"")
        #expect(h.cache.stores.count == storesBefore)
        #expect(h.manager.runningOperationCount == 0)
    }

    @Test func refreshCachedStoresTheNewImageWhenModified() async throws {
        let h = Harness()
        let url = Harness.url("r2.raw")
        h.loader.serve(RawImageCoder.solid(gray: 10), at: url, etag: "\"v1\"")
        _ = try await h.manager.image(for: url, options: [.waitStoreCache])
        h.loader.serve(RawImageCoder.solid(gray: 200), at: url, etag: "\"v2\"")
        let answers = Answers()
        h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], completion: answers.handler)
        let first = try #require(await answers.next().value)
        let second = try #require(await answers.next().value)
        #expect(first.image.pixels.bytes[0] == 10)
        #expect(second.image.pixels.bytes[0] == 200 && second.cacheType == .none)
        let cached = try await h.manager.image(for: url)
        #expect(cached.image.pixels.bytes[0] == 200)
    }

    @Test func shouldDownloadHookVetoesPerURL() async throws {
        let h = Harness()
        let allowed = Harness.url("ok.raw")
        let vetoed = Harness.url("no.raw")
        h.loader.serve(RawImageCoder.solid(), at: allowed)
        h.loader.serve(RawImageCoder.solid(), at: vetoed)
        h.manager.settings.shouldDownload = { $0.lastPathComponent != "no.raw" }
        _ = try await h.manager.image(for: allowed)
        await #expect { try await h.manager.image(for: vetoed) } throws: { error in
            if case ImageError.downloadNotAllowed = error { return true }
            return false
        }
        #expect(h.loader.requests.map(\.url) == [allowed])
    }

    @Test func cacheKeyFilterMapsURLsToOneKey() async throws {
        let h = Harness()
        h.manager.settings.cacheKeyFilter = CacheKeyFilterBlock { url in
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            parts.queryItems = parts.queryItems?.filter { $0.name != "sig" }
            if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
            return parts.url!.absoluteString
        }
        let signed1 = URL(string: "test://host/k.raw?sig=1")!
        let signed2 = URL(string: "test://host/k.raw?sig=2")!
        h.loader.serve(RawImageCoder.solid(), at: signed1)
        _ = try await h.manager.image(for: signed1, options: [.waitStoreCache])
        let hit = try await h.manager.image(for: signed2)
        #expect(hit.cacheType == .memory)
        #expect(h.cache.memoryKeys() == ["test://host/k.raw"])
    }

    @Test func callbacksRunOnTheContextQueue() async throws {
        let h = Harness()
        let url = Harness.url("q2.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        var context = ImageContext()
        context.callbackQueue = queue
        let onQueue: Bool = await withCheckedContinuation { continuation in
            h.manager.loadImage(with: url, context: context) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 42)
            }
        }
        #expect(onQueue)
    }

    @Test func customManagerInContextTakesOver() async throws {
        let h = Harness()
        let other = Harness()
        let url = Harness.url("cm.raw")
        other.loader.serve(RawImageCoder.solid(), at: url)
        var context = ImageContext()
        context.customManager = other.manager
        _ = try await h.manager.image(for: url, context: context)
        #expect(h.loader.requestCount == 0)
        #expect(other.loader.requestCount == 1)
    }

    @Test func thumbnailSizeChangesTheCacheKeyAndDecodeSize() async throws {
        let h = Harness()
        let url = Harness.url("big.raw")
        h.loader.serve(RawImageCoder.solid(width: 100, height: 50), at: url)
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(20)
        let thumb = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(thumb.image.width == 20 && thumb.image.height == 10)
        let key = h.manager.cacheKey(for: url, context: context)
        #expect(key != url.absoluteString)
        #expect(h.cache.memoryKeys() == [key])
        // The disk copy holds the original bytes; a disk hit decodes them at the thumbnail size again.
        var diskOnly = context
        diskOnly.queryCacheType = .disk
        let fromDisk = try await h.manager.image(for: url, context: diskOnly)
        #expect(fromDisk.cacheType == .disk && fromDisk.image.width == 20)
    }

    @Test func aCoderThatIgnoresTheThumbnailSizeStillYieldsAThumbnail() async throws {
        let h = Harness()
        let url = Harness.url("ignored.raw")
        h.loader.serve(RawImageCoder.solid(width: 100, height: 50), at: url)
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(20)
        context.imageCoder = FullSizeOnlyCoder()
        let thumb = try await h.manager.image(for: url, context: context)
        #expect(thumb.image.width == 20 && thumb.image.height == 10)
        // The decode-only coder wrote no encoder: the protocol's defaults answer for it.
        #expect(!FullSizeOnlyCoder().canEncode(to: .raw))
        #expect(throws: ImageError.unsupportedFormat(.raw)) {
            try FullSizeOnlyCoder().encode(thumb.image, as: .raw, options: EncodeOptions())
        }
    }
}

/// A decode-only coder that ignores `thumbnailPixelSize`, as a hasty plugin would.
private struct FullSizeOnlyCoder: ImageCoder {
    var decodableFormats: [ImageFormat] { [.raw] }
    func canDecode(_ data: Data) -> Bool { RawImageCoder().canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        try RawImageCoder().decode(data, options: DecodeOptions())
    }
}
