import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageCore

/// Inverts gray pixels; a transformer with a real effect, so tests can tell original from transformed.
struct InvertTransformer: ImageTransformer {
    var transformerKey: String { "invert" }
    func transform(_ image: Image, forKey key: String) -> Image? {
        var pixels = image.pixels
        pixels.bytes = pixels.bytes.map { 255 - $0 }
        return Image(pixels: pixels, format: image.format)
    }
}

@Suite("Transformers and cache stores")
struct TransformAndStoreTests {
    @Test func transformerKeyChangesTheCacheKeyAndTheOriginalIsStoredSeparately() async throws {
        let h = Harness()
        let url = Harness.url("photo.raw")
        h.loader.serve(RawImageCoder.solid(gray: 10), at: url)
        var context = ImageContext()
        context.imageTransformer = InvertTransformer()
        let result = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(result.image.pixels.bytes[0] == 245)

        let transformedKey = h.manager.cacheKey(for: url, context: context)
        #expect(transformedKey == "test://host/photo-invert.raw")
        let stores = h.cache.stores
        let original = try #require(stores.first { $0.key == url.absoluteString })
        let transformed = try #require(stores.first { $0.key == transformedKey })
        // Defaults: the original goes to disk only, with the downloaded bytes; the result to both levels.
        #expect(original.cacheType == .disk && original.data == RawImageCoder.solid(gray: 10))
        #expect(transformed.cacheType == .all)
        #expect(h.cache.memoryKeys() == [transformedKey])
    }

    @Test func missingTransformedImageIsMadeFromTheCachedOriginal() async throws {
        let h = Harness()
        let url = Harness.url("orig.raw")
        h.cache.putDisk(RawImageCoder.solid(gray: 0), key: url.absoluteString)
        var context = ImageContext()
        context.imageTransformer = InvertTransformer()
        let result = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(result.cacheType == .disk)
        #expect(result.image.pixels.bytes[0] == 255)
        #expect(h.loader.requestCount == 0)
    }

    @Test func storeCacheTypesAreHonoured() async throws {
        let h = Harness()
        let url = Harness.url("s.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        var context = ImageContext()
        context.storeCacheType = .memory
        _ = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(h.cache.memoryKeys() == [url.absoluteString])
        #expect(h.cache.diskKeys().isEmpty)

        let other = Harness.url("none.raw")
        h.loader.serve(RawImageCoder.solid(), at: other)
        context.storeCacheType = .none
        _ = try await h.manager.image(for: other, options: [.waitStoreCache], context: context)
        #expect(!h.cache.stores.contains { $0.key == other.absoluteString })
    }

    @Test func originalStoreCacheTypeIsHonoured() async throws {
        let h = Harness()
        let url = Harness.url("o.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        var context = ImageContext()
        context.imageTransformer = InvertTransformer()
        context.originalStoreCacheType = .none
        _ = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(h.cache.stores.map(\.key) == ["test://host/o-invert.raw"])
    }

    @Test func cacheSerializerDecidesTheDiskBytes() async throws {
        let h = Harness()
        let url = Harness.url("ser.raw")
        h.loader.serve(RawImageCoder.solid(width: 2, height: 2), at: url)
        var context = ImageContext()
        let marker = RawImageCoder.solid(width: 1, height: 1, gray: 7)
        context.cacheSerializer = CacheSerializerBlock { _, _, _ in marker }
        _ = try await h.manager.image(for: url, options: [.waitStoreCache], context: context)
        #expect(h.cache.stores.first?.data == marker)
    }

    @Test func waitStoreCacheAnswersOnlyAfterTheStoreFinished() async throws {
        let h = Harness()
        let url = Harness.url("w.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        let answers = Answers()
        let cache = h.cache
        h.manager.loadImage(with: url, options: [.waitStoreCache]) { result in
            cache.log("answered")
            answers.handler(result)
        }
        _ = await answers.next()
        #expect(h.cache.events == ["stored \(url.absoluteString)", "answered"])
    }

    @Test(.timeLimit(.minutes(1)))
    func withoutWaitStoreCacheTheAnswerWaitsForMemoryButNotForDisk() async throws {
        // The disk-only store waits for this gate, which opens only after the answer: a manager that
        // awaited that store would never answer (the time limit ends the test then).
        let diskStores = AsyncGate()
        let h = Harness(diskOnlyStoresWaitFor: diskStores)
        let url = Harness.url("nw.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        let answers = Answers()
        let cache = h.cache
        h.manager.loadImage(with: url) { result in
            cache.log("answered " + cache.stores.map(\.cacheType.rawValue).joined(separator: ","))
            answers.handler(result)
        }
        _ = await answers.next()
        // The memory store was awaited, the disk store was not (and is still held), so the answer saw
        // only the first.
        #expect(h.cache.events == ["stored \(url.absoluteString)", "answered memory"])
        diskStores.open()
        #expect(try await eventually { !h.cache.diskKeys().isEmpty })
        #expect(h.cache.stores.map(\.cacheType) == [.memory, .disk])
    }

    @Test func animatedImagesAreNotTransformedUnlessAsked() async throws {
        let frames = (0..<3).map { i in
            ImageFrame(
                pixels: PixelBuffer(width: 2, height: 2, layout: .gray8, bytes: [UInt8](repeating: UInt8(i), count: 4)),
                duration: .milliseconds(100))
        }
        let animated = Image(frames: frames, loopCount: 0)
        let loader = StaticImageLoader(image: animated)
        let manager = ImageManager(cache: TestCache(), loader: loader)
        var context = ImageContext()
        context.imageTransformer = InvertTransformer()
        let kept = try await manager.image(for: Harness.url("anim"), options: [.fromLoaderOnly], context: context)
        #expect(kept.image.isAnimated)
        let transformed = try await manager.image(
            for: Harness.url("anim"),
            options: [.fromLoaderOnly, .transformAnimatedImage], context: context)
        #expect(!transformed.image.isAnimated && transformed.image.pixels.bytes[0] == 255)
    }
}

/// Delivers one ready-made image for any `test://` URL.
struct StaticImageLoader: ImageLoader {
    let image: Image
    func canRequestImage(for url: URL) -> Bool { true }
    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        completion(.success(LoadedImage(data: Data(), image: image)))
        return FinishedOperation()
    }
}
