import Foundation
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageMemoryCache
import WebImagePNGCoder
import WebImageTestSupport
import WebImageTesting

@testable import WebImageRedisCache

/// The contract every cache keeps (WebImageTesting's `CacheContract`), run on the two-level cache with Redis
/// in place of the disk tier, against a real redis-server.
@Suite("Redis tier keeps the cache contract")
struct RedisCacheContractTests {
    @Test(arguments: [ImageCacheType.all, .disk])
    func theCacheContractHolds(on levels: ImageCacheType) async throws {
        let server = try RedisServerProcess()
        let coders = ImageCodersManager(coders: [PNGCoder()])
        let cache = WebImageCache(
            memory: MemoryCache(), disk: RedisCache(configuration: .forTests([server])),
            coder: coders)
        let sample = Image(pixels: TestPictures.quadrants(width: 8, height: 6, layout: .rgba8))
        let data = try PNGCoder().encode(sample, as: .png, options: EncodeOptions())
        var contract = CacheContract(cache: cache, sample: sample, sampleData: data)
        contract.cacheType = levels
        let violations = await contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
