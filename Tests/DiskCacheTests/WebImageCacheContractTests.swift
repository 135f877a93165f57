import Foundation
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageMemoryCache
import WebImageTestSupport
import WebImageTesting

/// The contract every cache keeps (WebImageTesting's `CacheContract`), run on the two-level cache, and on
/// each of its levels alone.
@Suite("WebImageCache keeps the cache contract")
struct WebImageCacheContractTests {
    @Test(arguments: [ImageCacheType.all, .memory, .disk])
    func theCacheContractHolds(on levels: ImageCacheType) async throws {
        let directory = try TemporaryDirectory(prefix: "cache-contract")
        let coder = RawImageCoder()
        let cache = try WebImageCache(
            directory: directory.url, namespace: "contract",
            coder: ImageCodersManager(coders: [coder]))
        let sample = Image(pixels: TestPictures.quadrants(width: 8, height: 6, layout: .rgba8))
        let data = try coder.encode(sample, as: .raw, options: EncodeOptions())
        var contract = CacheContract(cache: cache, sample: sample, sampleData: data)
        contract.cacheType = levels
        // Validators live beside the bytes on disk; a memory-only entry has none.
        contract.keepsValidators = levels != .memory
        let violations = await contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
