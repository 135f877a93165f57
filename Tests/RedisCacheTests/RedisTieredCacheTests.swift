import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageHTTPLoader
import WebImagePNGCoder
import WebImageTestSupport

@testable import WebImageRedisCache

/// The three-level cache (memory → disk → Redis) under an `ImageManager` loading from a real loopback
/// HTTP server: what several image servers sharing one Redis see.
@Suite("Redis tier in the image cache")
struct RedisTieredCacheTests {
    static let coders = ImageCodersManager(coders: [PNGCoder()])

    /// A small PNG whose pixels depend on `seed`.
    static func png(seed: Int) throws -> [UInt8] {
        let bytes = (0..<(16 * 16 * 4)).map { UInt8(truncatingIfNeeded: $0 &* (seed + 1)) }
        let image = Image(pixels: PixelBuffer(width: 16, height: 16, layout: .rgba8, bytes: bytes))
        return [UInt8](try PNGCoder().encode(image, as: .png, options: EncodeOptions()))
    }

    /// Serves `/img/N.png` as the PNG of seed N, with an ETag.
    static func imageServer() throws -> LoopbackHTTPServer {
        let server = try LoopbackHTTPServer()
        server.route(prefix: "/img/") { request, connection in
            let seed = Int(request.path.dropFirst("/img/".count).prefix { $0.isNumber }) ?? 0
            try connection.respond(
                status: 200, headers: [("Content-Type", "image/png"), ("ETag", "\"e\(seed)\"")],
                body: try png(seed: seed))
        }
        return server
    }

    /// One "image server": its own memory and disk, the shared Redis behind them.
    struct Instance {
        let directory: TemporaryDirectory
        let cache: WebImageCache
        let manager: ImageManager
        var tiers: TieredDiskStorage { cache.disk as! TieredDiskStorage }

        init(redis: RedisCache) throws {
            directory = try TemporaryDirectory(prefix: "redis-tier")
            cache = try WebImageCache(
                directory: directory.url, namespace: "images", redis: redis, coder: RedisTieredCacheTests.coders)
            var loaderConfiguration = HTTPLoaderConfiguration()
            loaderConfiguration.coders = RedisTieredCacheTests.coders
            manager = ImageManager(
                cache: cache, loader: HTTPLoader(configuration: loaderConfiguration),
                coders: RedisTieredCacheTests.coders)
        }

        func load(_ url: URL) async throws -> ImageLoadResult {
            try await manager.image(for: url, options: [.waitStoreCache])
        }
    }

    @Test func aSecondServerServesWhatTheFirstStored() async throws {
        let redisServer = try RedisServerProcess()
        let http = try Self.imageServer()
        defer { http.shutdown() }
        let redis = RedisCache(configuration: .forTests([redisServer]))
        let first = try Instance(redis: redis)
        let second = try Instance(redis: RedisCache(configuration: redis.configuration))
        let url = http.url("/img/7.png")

        let cold = try await first.load(url)
        #expect(cold.cacheType == .none)
        let shared = try await second.load(url)
        #expect(shared.cacheType == .disk && shared.image.pixels == cold.image.pixels)
        #expect(http.requestCount(for: "/img/7.png") == 1)
        // The Redis hit was promoted to the second server's own disk, with its validators.
        let key = second.manager.cacheKey(for: url)
        #expect(second.tiers.local.containsData(forKey: key))
        let validators = second.tiers.local.extendedData(forKey: key).flatMap {
            try? JSONDecoder().decode(CacheValidators.self, from: $0)
        }
        #expect(validators?.etag == "\"e7\"")
        // From now on it is a local hit: Redis is not asked again.
        let hitsBefore = second.cache.redisTier!.statistics.hits
        await second.cache.clear(cacheType: .memory)
        #expect(try await second.load(url).cacheType == .disk)
        #expect(second.cache.redisTier!.statistics.hits == hitsBefore)
    }

    @Test func prefetchPullsManyEntriesInOnePipeline() async throws {
        let redisServer = try RedisServerProcess()
        let http = try Self.imageServer()
        defer { http.shutdown() }
        let first = try Instance(redis: RedisCache(configuration: .forTests([redisServer])))
        let urls = (0..<20).map { http.url("/img/\($0).png") }
        for url in urls { _ = try await first.load(url) }

        let second = try Instance(redis: RedisCache(configuration: first.cache.redisTier!.configuration))
        let keys = urls.map { second.manager.cacheKey(for: $0) } + ["never stored"]
        #expect(second.tiers.prefetch(keys: keys) == 20)
        #expect(urls.allSatisfy { second.tiers.local.containsData(forKey: second.manager.cacheKey(for: $0)) })
        #expect(second.tiers.prefetch(keys: keys) == 0)  // all local now; only the unknown key is asked
    }

    @Test func loadsKeepSucceedingWhileRedisIsDownAndTheTierRecovers() async throws {
        let redisServer = try RedisServerProcess()
        let http = try Self.imageServer()
        defer { http.shutdown() }
        let redis = RedisCache(configuration: .forTests([redisServer]))
        let instance = try Instance(redis: redis)
        for seed in 0..<5 { _ = try await instance.load(http.url("/img/\(seed).png")) }
        #expect(redis.statistics.stores == 5)

        redisServer.kill()
        // New images: loaded from the network and stored locally; the Redis writes fail quietly.
        for seed in 5..<15 {
            let result = try await instance.load(http.url("/img/\(seed).png"))
            #expect(result.cacheType == .none && result.image.width == 16)
        }
        // Another server with an empty disk: Redis cannot answer, so the network does.
        let other = try Instance(redis: RedisCache(configuration: redis.configuration))
        for seed in 0..<5 {
            #expect(try await other.load(http.url("/img/\(seed).png")).cacheType == .none)
        }
        let down = redis.statistics
        #expect(down.connectFailures + down.skippedWhileDown + down.commandFailures > 0)
        #expect(down.stores == 5)

        // Redis comes back (empty: no persistence). The next stores reach it once the backoff ends.
        try redisServer.start()
        var seed = 100
        try await eventuallyAsync("stores reach Redis again") {
            seed += 1
            _ = try await instance.load(http.url("/img/\(seed).png"))
            return redis.statistics.stores > 5
        }
        let third = try Instance(redis: RedisCache(configuration: redis.configuration))
        let recovered = try await third.load(http.url("/img/\(seed).png"))
        #expect(recovered.cacheType == .disk)
        #expect(http.requestCount(for: "/img/\(seed).png") == 1)
    }
}
