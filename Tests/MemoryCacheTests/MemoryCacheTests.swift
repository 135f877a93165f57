import Foundation
import Testing
import WebImageCore

@testable import WebImageMemoryCache

@Suite("MemoryCache")
struct MemoryCacheTests {
    func image(bytes: Int) -> Image {
        Image(pixels: PixelBuffer(width: bytes, height: 1, layout: .gray8, bytes: [UInt8](repeating: 0, count: bytes)))
    }

    @Test func evictsTheLeastRecentlyUsedFirst() {
        let cache = MemoryCache(costLimit: .max, countLimit: 3)
        for key in ["a", "b", "c"] { cache.setImage(image(bytes: 1), forKey: key) }
        _ = cache.image(forKey: "a")  // a is now the most recent
        cache.setImage(image(bytes: 1), forKey: "d")
        #expect(cache.image(forKey: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        cache.setImage(image(bytes: 1), forKey: "e")
        #expect(cache.keysByRecency == ["e", "d", "a"])
    }

    @Test func totalCostStaysWithinTheCostLimit() {
        let cache = MemoryCache(costLimit: 100)
        cache.setImage(image(bytes: 40), forKey: "a")
        cache.setImage(image(bytes: 40), forKey: "b")
        #expect(cache.totalCost == 80)
        cache.setImage(image(bytes: 40), forKey: "c")
        #expect(cache.totalCost == 80)
        #expect(cache.keysByRecency == ["c", "b"])
        // An entry bigger than the whole limit does not stay.
        cache.setImage(image(bytes: 101), forKey: "huge")
        #expect(cache.image(forKey: "huge") == nil)
        #expect(cache.totalCost <= 100)
    }

    @Test func replacingAKeyUpdatesItsCost() {
        let cache = MemoryCache()
        cache.setImage(image(bytes: 10), forKey: "a")
        cache.setImage(image(bytes: 30), forKey: "a")
        #expect(cache.totalCost == 30 && cache.count == 1)
    }

    @Test func loweringTheLimitsTrimsAtOnce() {
        let cache = MemoryCache()
        for i in 0..<10 { cache.setImage(image(bytes: 10), forKey: "\(i)") }
        cache.costLimit = 50
        #expect(cache.count == 5 && cache.totalCost == 50)
        #expect(Set(cache.keysByRecency) == ["5", "6", "7", "8", "9"])
        cache.countLimit = 2
        #expect(cache.keysByRecency == ["9", "8"])
    }

    @Test func removeAndRemoveAll() {
        let cache = MemoryCache()
        cache.setImage(image(bytes: 5), forKey: "a")
        cache.setImage(image(bytes: 5), forKey: "b")
        cache.removeImage(forKey: "a")
        #expect(cache.image(forKey: "a") == nil && cache.totalCost == 5)
        cache.removeAllImages()
        #expect(cache.count == 0 && cache.totalCost == 0)
        // Slots freed by removal are reused correctly.
        for i in 0..<4 { cache.setImage(image(bytes: 1), forKey: "n\(i)") }
        #expect(cache.keysByRecency == ["n3", "n2", "n1", "n0"])
    }

    @Test func costIsThePixelBytesOfTheImage() {
        let cache = MemoryCache()
        let rgba = Image(pixels: PixelBuffer(width: 10, height: 10, layout: .rgba8))
        cache.setImage(rgba, forKey: "x")
        #expect(cache.totalCost == 400)
    }

    @Test func worksAsAMemoryOnlyImageCache() async throws {
        let cache = MemoryCache()
        let context = ImageContext()
        try await cache.store(
            image(bytes: 3), data: Data([1, 2]), validators: nil, forKey: "k", cacheType: .all, context: context)
        #expect(await cache.containsImage(forKey: "k", cacheType: .all) == .memory)
        #expect(await cache.containsImage(forKey: "k", cacheType: .disk) == .none)
        #expect(await cache.queryImage(forKey: "k", options: [], context: context, cacheType: .disk) == nil)
        let hit = await cache.queryImage(forKey: "k", options: [], context: context, cacheType: .memory)
        #expect(hit?.cacheType == .memory && hit?.image.width == 3)
        try await cache.store(
            image(bytes: 3), data: nil, validators: nil, forKey: "disk-only", cacheType: .disk, context: context)
        #expect(cache.image(forKey: "disk-only") == nil)
        await cache.removeImage(forKey: "k", cacheType: .memory)
        #expect(cache.imageFromMemory(forKey: "k") == nil)
        try await cache.store(
            image(bytes: 3), data: nil, validators: nil, forKey: "z", cacheType: .memory, context: context)
        await cache.clear(cacheType: .memory)
        #expect(cache.count == 0)
    }

    @Test func concurrentUseKeepsCountsConsistent() async {
        let cache = MemoryCache(costLimit: 1000, countLimit: 50)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        let key = "\((i * 7 + worker) % 120)"
                        if i % 3 == 0 {
                            cache.removeImage(forKey: key)
                        } else {
                            cache.setImage(self.image(bytes: i % 40 + 1), forKey: key)
                        }
                        _ = cache.image(forKey: "\(i % 120)")
                    }
                }
            }
        }
        #expect(cache.count <= 50 && cache.totalCost <= 1000)
        #expect(cache.keysByRecency.count == cache.count)
    }
}
