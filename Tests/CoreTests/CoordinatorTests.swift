import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageCore

@Suite("Coders, loaders and caches managers")
struct CoordinatorTests {
    @Test func theLastRegisteredCoderThatCanDecodeWins() throws {
        let manager = ImageCodersManager()
        manager.addCoder(RawImageCoder(tag: "built-in"))
        manager.addCoder(RawImageCoder(tag: "custom"))
        let image = try manager.decode(RawImageCoder.solid(), options: DecodeOptions())
        #expect(image.metadata.xmp == Data("custom".utf8))
        manager.removeCoders(ofType: RawImageCoder.self)
        #expect(manager.coders.isEmpty)
    }

    @Test func decodeFailsWithUnsupportedFormatForUnknownData() {
        let manager = ImageCodersManager(coders: [RawImageCoder()])
        let gif = Data("GIF89a....".utf8)
        #expect(throws: ImageError.unsupportedFormat(.gif)) { try manager.decode(gif, options: DecodeOptions()) }
        #expect(throws: ImageError.badImageData(reason: "no data")) {
            try manager.decode(Data(), options: DecodeOptions())
        }
    }

    @Test func decodableFormatsListEachFormatOnce() {
        let manager = ImageCodersManager(coders: [RawImageCoder(), RawImageCoder()])
        #expect(manager.decodableFormats == [.raw])
    }

    @Test func pixelLimitIsCheckedBeforeDecoding() {
        let manager = ImageCodersManager(coders: [RawImageCoder()])
        var header = Data(RawImageCoder.magic)
        header.append(contentsOf: [0xEA, 0x60, 0xEA, 0x60, 0])  // 60000 x 60000, no pixels
        #expect(
            throws: ImageError.imageTooLarge(width: 60000, height: 60000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try manager.decode(header, options: DecodeOptions())
        }
    }

    @Test func theLastRegisteredLoaderThatCanRequestTheURLWins() async throws {
        let first = TestLoader()
        let second = TestLoader()
        let url = Harness.url("x.raw")
        first.serve(RawImageCoder.solid(), at: url)
        second.serve(RawImageCoder.solid(), at: url)
        let loaders = ImageLoadersManager(loaders: [first, second])
        let manager = ImageManager(
            cache: TestCache(), loader: loaders, coders: ImageCodersManager(coders: [RawImageCoder()]))
        _ = try await manager.image(for: url)
        #expect(first.requestCount == 0 && second.requestCount == 1)
        #expect(!loaders.canRequestImage(for: URL(string: "ftp://x/y")!))
    }

    @Test func cachesManagerQueriesSeriallyFromTheHighestPriority() async throws {
        let low = TestCache()
        let high = TestCache()
        low.putDisk(RawImageCoder.solid(gray: 1), key: "k")
        high.putDisk(RawImageCoder.solid(gray: 2), key: "k")
        low.putDisk(RawImageCoder.solid(gray: 3), key: "only-low")
        let manager = ImageCachesManager(caches: [low, high])
        let hit = await manager.queryImage(forKey: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(hit?.image.pixels.bytes[0] == 2)
        let fallback = await manager.queryImage(
            forKey: "only-low", options: [], context: ImageContext(), cacheType: .all)
        #expect(fallback?.image.pixels.bytes[0] == 3)
        manager.policies.query = .lowestOnly
        let lowest = await manager.queryImage(forKey: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(lowest?.image.pixels.bytes[0] == 1)
        manager.policies.query = .highestOnly
        #expect(
            await manager.queryImage(forKey: "only-low", options: [], context: ImageContext(), cacheType: .all) == nil)
        manager.policies.query = .concurrent
        #expect(
            await manager.queryImage(forKey: "only-low", options: [], context: ImageContext(), cacheType: .all) != nil)
    }

    @Test(arguments: CachesOperationPolicy.allCases)
    func cachesManagerStoresPerPolicy(policy: CachesOperationPolicy) async throws {
        let low = TestCache()
        let high = TestCache()
        var policies = ImageCachesManager.Policies()
        policies.store = policy
        policies.contains = policy
        policies.remove = policy
        policies.clear = policy
        let manager = ImageCachesManager(caches: [low, high], policies: policies)
        try await manager.store(
            nil, data: RawImageCoder.solid(), validators: nil, forKey: "k", cacheType: .disk,
            context: ImageContext())
        let expected: (low: Bool, high: Bool) =
            switch policy {
            case .highestOnly: (false, true)
            case .lowestOnly: (true, false)
            case .concurrent, .serial: (true, true)
            }
        #expect(low.diskKeys().contains("k") == expected.low)
        #expect(high.diskKeys().contains("k") == expected.high)
        #expect(await manager.containsImage(forKey: "k", cacheType: .all) == .disk)
        await manager.removeImage(forKey: "k", cacheType: .all)
        #expect(await manager.containsImage(forKey: "k", cacheType: .all) == .none)
        try await manager.store(
            nil, data: RawImageCoder.solid(), validators: nil, forKey: "k2", cacheType: .disk,
            context: ImageContext())
        await manager.clear(cacheType: .all)
        #expect(await manager.containsImage(forKey: "k2", cacheType: .all) == .none)
    }
}
