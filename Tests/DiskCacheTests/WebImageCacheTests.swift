import Foundation
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageMemoryCache
import WebImageTestSupport

/// The two-level cache over a real memory cache and a real disk cache in a temporary directory, decoding
/// with a private coders manager that holds the test coder.
struct TwoLevelFixture {
    let temporary: TemporaryDirectory
    let cache: WebImageCache
    let disk: DiskCache
    let key = "https://example.com/photos/cat@2x.raw"

    init() throws {
        temporary = try TemporaryDirectory(prefix: "two-level")
        cache = try WebImageCache(
            directory: temporary.url, namespace: "images",
            coder: ImageCodersManager(coders: [RawImageCoder()]))
        disk = try #require(cache.disk as? DiskCache)
    }

    var sampleData: Data { RawImageCoder.sample(width: 64, height: 32) }
    var sampleImage: Image {
        get throws { try RawImageCoder().decode(sampleData, options: DecodeOptions()) }
    }
}

@Suite("Two-level image cache")
struct WebImageCacheTests {
    @Test(arguments: ImageCacheType.allCases)
    func storeThenQueryHonoursEveryCacheType(storeType: ImageCacheType) async throws {
        let fixture = try TwoLevelFixture()
        let cache = fixture.cache
        try await cache.store(
            try fixture.sampleImage, data: fixture.sampleData, validators: nil, forKey: fixture.key,
            cacheType: storeType, context: ImageContext())
        let expectedLevel: ImageCacheType =
            storeType.includesMemory ? .memory : (storeType.includesDisk ? .disk : .none)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == expectedLevel)
        #expect(
            await cache.containsImage(forKey: fixture.key, cacheType: .disk) == (storeType.includesDisk ? .disk : .none)
        )
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .none) == ImageCacheType.none)

        // Disk first, so that a memory query below does not see a promoted disk hit.
        let fromDisk = await cache.queryImage(
            forKey: fixture.key, options: [], context: ImageContext(), cacheType: .disk)
        #expect(fromDisk?.cacheType == (storeType.includesDisk ? .disk : nil))
        #expect(fromDisk?.data == (storeType.includesDisk ? fixture.sampleData : nil))
        let fromMemory = await cache.queryImage(
            forKey: fixture.key, options: [], context: ImageContext(), cacheType: .memory)
        #expect(fromMemory?.cacheType == (storeType == .none ? nil : .memory))
        #expect(
            await cache.queryImage(forKey: fixture.key, options: [], context: ImageContext(), cacheType: .none) == nil)
        if let hit = fromMemory { #expect(hit.image.pixels == (try fixture.sampleImage).pixels) }
    }

    @Test func diskHitIsPromotedToMemoryUnlessTheStoreTypeLeavesMemoryOut() async throws {
        let fixture = try TwoLevelFixture()
        let cache = fixture.cache
        try await cache.store(
            nil, data: fixture.sampleData, validators: nil, forKey: fixture.key,
            cacheType: .disk, context: ImageContext())
        var diskOnly = ImageContext()
        diskOnly.storeCacheType = .disk
        let first = await cache.queryImage(forKey: fixture.key, options: [], context: diskOnly, cacheType: .all)
        #expect(first?.cacheType == .disk)
        #expect(cache.imageFromMemory(forKey: fixture.key) == nil)

        let second = await cache.queryImage(forKey: fixture.key, options: [], context: ImageContext(), cacheType: .all)
        #expect(second?.cacheType == .disk)
        #expect(cache.imageFromMemory(forKey: fixture.key)?.pixels == second?.image.pixels)
        let third = await cache.queryImage(forKey: fixture.key, options: [], context: ImageContext(), cacheType: .all)
        #expect(third?.cacheType == .memory)
    }

    @Test func diskHitDecodesWithTheContextsThumbnailSizeAndTheURLsScale() async throws {
        let fixture = try TwoLevelFixture()
        try await fixture.cache.store(
            nil, data: fixture.sampleData, validators: nil, forKey: fixture.key,
            cacheType: .disk, context: ImageContext())
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(16)
        let hit = try #require(
            await fixture.cache.queryImage(
                forKey: fixture.key, options: [], context: context,
                cacheType: .all))
        #expect(hit.image.width == 16)
        #expect(hit.image.height == 8)
        #expect(hit.image.scale == 2)  // "@2x" in the key's URL, as for a fresh download
        #expect(hit.image.format == .raw)
    }

    @Test func synchronousDiskQueryAnswersTheSameHit() async throws {
        let fixture = try TwoLevelFixture()
        try await fixture.cache.store(
            nil, data: fixture.sampleData, validators: nil, forKey: fixture.key,
            cacheType: .disk, context: ImageContext())
        let hit = await fixture.cache.queryImage(
            forKey: fixture.key, options: [.queryDiskDataSync, .queryMemoryDataSync],
            context: ImageContext(), cacheType: .all)
        #expect(hit?.cacheType == .disk)
        #expect(hit?.image.width == 64)
    }

    @Test func queryMemoryDataAttachesTheDiskBytesToAMemoryHit() async throws {
        let fixture = try TwoLevelFixture()
        try await fixture.cache.store(
            try fixture.sampleImage, data: fixture.sampleData, validators: nil,
            forKey: fixture.key, cacheType: .all, context: ImageContext())
        let plain = await fixture.cache.queryImage(
            forKey: fixture.key, options: [], context: ImageContext(), cacheType: .all)
        #expect(plain?.cacheType == .memory)
        #expect(plain?.data == nil)
        let withData = await fixture.cache.queryImage(
            forKey: fixture.key, options: [.queryMemoryData],
            context: ImageContext(), cacheType: .all)
        #expect(withData?.cacheType == .memory)
        #expect(withData?.data == fixture.sampleData)
    }

    @Test func validatorsAreStoredAsExtendedDataAndReturnedWithTheHit() async throws {
        let fixture = try TwoLevelFixture()
        let validators = CacheValidators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        try await fixture.cache.store(
            nil, data: fixture.sampleData, validators: validators, forKey: fixture.key,
            cacheType: .disk, context: ImageContext())
        let hit = await fixture.cache.queryImage(
            forKey: fixture.key, options: [], context: ImageContext(), cacheType: .disk)
        #expect(hit?.validators == validators)
    }

    @Test func imageStoredWithoutBytesIsEncodedInItsFormat() async throws {
        let fixture = try TwoLevelFixture()
        let image = try fixture.sampleImage
        try await fixture.cache.store(
            image, data: nil, validators: nil, forKey: fixture.key, cacheType: .disk,
            context: ImageContext())
        let stored = try #require(try fixture.disk.data(forKey: fixture.key))
        #expect(try RawImageCoder().decode(stored, options: DecodeOptions()).pixels == image.pixels)
    }

    @Test func imageStoredWithoutBytesUsesTheContextsSerializer() async throws {
        let fixture = try TwoLevelFixture()
        let serialized = RawImageCoder.sample(width: 2, height: 2)
        var context = ImageContext()
        context.cacheSerializer = CacheSerializerBlock { _, _, _ in serialized }
        try await fixture.cache.store(
            try fixture.sampleImage, data: nil, validators: nil, forKey: fixture.key,
            cacheType: .disk, context: context)
        #expect(try fixture.disk.data(forKey: fixture.key) == serialized)
    }

    @Test func imageNoCoderCanEncodeIsATypedErrorAndStaysInMemory() async throws {
        let fixture = try TwoLevelFixture()
        var image = try fixture.sampleImage
        image.format = .gif
        await #expect(throws: ImageError.unsupportedFormat(.gif)) {
            try await fixture.cache.store(
                image, data: nil, validators: nil, forKey: fixture.key, cacheType: .all,
                context: ImageContext())
        }
        #expect(fixture.cache.imageFromMemory(forKey: fixture.key) != nil)
        #expect(!fixture.disk.containsData(forKey: fixture.key))
    }

    @Test(arguments: ["truncated", "garbage"])
    func undecodableFileIsAMissAndIsRemoved(damage: String) async throws {
        let fixture = try TwoLevelFixture()
        try await fixture.cache.store(
            nil, data: fixture.sampleData, validators: nil, forKey: fixture.key,
            cacheType: .disk, context: ImageContext())
        let file = fixture.disk.fileURL(forKey: fixture.key)
        let damaged =
            damage == "truncated"
            ? fixture.sampleData.prefix(fixture.sampleData.count / 2)
            : Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        try damaged.write(to: file)
        let hit = await fixture.cache.queryImage(
            forKey: fixture.key, options: [], context: ImageContext(), cacheType: .all)
        #expect(hit == nil)
        #expect(!fixture.disk.containsData(forKey: fixture.key))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func removeAndClearTouchOnlyTheLevelsAskedFor() async throws {
        let fixture = try TwoLevelFixture()
        let cache = fixture.cache
        let store = { @Sendable () async throws in
            try await cache.store(
                try fixture.sampleImage, data: fixture.sampleData, validators: nil,
                forKey: fixture.key, cacheType: .all, context: ImageContext())
        }
        try await store()
        await cache.removeImage(forKey: fixture.key, cacheType: .memory)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == .disk)
        await cache.removeImage(forKey: fixture.key, cacheType: .disk)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == ImageCacheType.none)

        try await store()
        await cache.clear(cacheType: .disk)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == .memory)
        #expect(await cache.totalDiskCount == 0)
        try await store()
        await cache.clear(cacheType: .memory)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == .disk)
        await cache.clear(cacheType: .all)
        #expect(await cache.containsImage(forKey: fixture.key, cacheType: .all) == ImageCacheType.none)
    }

    @Test func customStoragesCanReplaceEitherLevel() async throws {
        let temporary = try TemporaryDirectory(prefix: "two-level")
        let memory = MemoryCache(costLimit: 1 << 20, countLimit: 1)
        let disk = try DiskCache(directory: temporary.url, namespace: "custom")
        let cache = WebImageCache(memory: memory, disk: disk, coder: RawImageCoder())
        try await cache.store(
            nil, data: RawImageCoder.sample(width: 4, height: 4), validators: nil, forKey: "a",
            cacheType: .disk, context: ImageContext())
        _ = await cache.queryImage(forKey: "a", options: [], context: ImageContext(), cacheType: .all)
        #expect(memory.count == 1)
        #expect(disk.totalCount == 1)
    }
}
