import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader

/// The loader registered like any user loader, driven by ``ImageManager``.
@Suite(.timeLimit(.minutes(1)))
struct ManagerIntegrationTests {
    let server: LoopbackHTTPServer

    init() throws { server = try FaultServer.make() }

    /// Collects a load's answers until the final one.
    private func answers(
        _ manager: ImageManager, _ url: URL, options: ImageOptions
    ) async -> [Result<ImageLoadResult, ImageError>] {
        let collected = Locked<[Result<ImageLoadResult, ImageError>]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            manager.loadImage(with: url, options: options) { result in
                collected.withLock { $0.append(result) }
                if (try? result.get().isFinal) ?? true { continuation.resume() }
            }
        }
        return collected.withLock { $0 }
    }

    @Test func refreshCachedRevalidatesWithTheStoredETagAndKeepsTheImageOnNotModified() async throws {
        let loaders = ImageLoadersManager()
        loaders.addLoader(makeLoader())
        let cache = RecordingCache()
        let manager = ImageManager(cache: cache, loader: loaders, coders: ImageCodersManager(coders: [PGMCoder()]))
        let url = server.url("/etag.pgm")

        let first = await answers(manager, url, options: [.waitStoreCache])
        let downloaded = try #require(try first.last?.get())
        #expect(downloaded.cacheType == .none)
        #expect(downloaded.image.width == 16)
        #expect(cache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")
        #expect(cache.validators(forKey: url.absoluteString)?.lastModified == "Mon, 02 Nov 2026 10:00:00 GMT")

        let second = await answers(manager, url, options: [.refreshCached, .waitStoreCache])
        #expect(second.count == 2)
        let cached = try #require(try second.first?.get())
        let final = try #require(try second.last?.get())
        #expect(!cached.isFinal)
        #expect(final.isFinal)
        #expect(final.cacheType != .none)  // the cached image, kept after the 304
        #expect(final.image.pixels == downloaded.image.pixels)
        #expect(server.requestCount(for: "/etag.pgm") == 2)
        let revalidation = try #require(server.requestLog.last)
        #expect(revalidation.headers["if-none-match"] == "\"v1\"")
        #expect(revalidation.headers["if-modified-since"] == "Mon, 02 Nov 2026 10:00:00 GMT")
    }

    @Test func aNotFoundURLIsBlockedByTheManagerAndATimeoutIsNot() async throws {
        let loaders = ImageLoadersManager()
        loaders.addLoader(makeLoader { $0.timeout = .seconds(1) })
        let manager = ImageManager(
            cache: RecordingCache(), loader: loaders, coders: ImageCodersManager(coders: [PGMCoder()]))
        let missing = server.url("/not-found")
        let stalled = server.url("/stall")
        _ = await answers(manager, missing, options: [])
        _ = await answers(manager, stalled, options: [])
        #expect(manager.isFailedURL(missing))
        #expect(!manager.isFailedURL(stalled))
    }
}
