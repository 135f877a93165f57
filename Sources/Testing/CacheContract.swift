import Foundation
import WebImageCore

/// The duties every `ImageCache` has, checked with images the caller provides.
///
/// ```swift
/// @Test func myCacheKeepsItsContract() async {
///     let violations = await CacheContract(cache: try RedisTier(...), sample: image, sampleData: png).violations()
///     #expect(violations.isEmpty, "\(violations)")
/// }
/// ```
///
/// The checks, on the cache levels of ``cacheType``: a stored entry is found by `queryImage` and
/// `containsImage` at its size, with its validators (asked with `refreshCached`) when the cache keeps them; removing it and clearing
/// the cache make it gone; and many concurrent stores and queries of different keys all find their entry.
public struct CacheContract: Sendable {
    /// The cache under test; it is cleared by the checks.
    public var cache: any ImageCache
    /// An image to store.
    public var sample: Image
    /// The encoded bytes of `sample` (what a disk level keeps).
    public var sampleData: Data
    /// The levels the checks store into and query.
    public var cacheType: ImageCacheType = .all
    /// Whether the cache must return the validators stored with an entry.
    public var keepsValidators = true
    /// Keys stored and queried at once in the concurrency check.
    public var concurrentKeys = 200

    /// Checks of `cache` with `sample` and its encoded bytes.
    public init(cache: any ImageCache, sample: Image, sampleData: Data) {
        self.cache = cache
        self.sample = sample
        self.sampleData = sampleData
    }

    /// Every violation found; empty when the cache keeps its contract.
    public func violations() async -> [ContractViolation] {
        var found: [ContractViolation] = []
        await cache.clear(cacheType: cacheType)
        let key = "contract-\(UUID().uuidString)"
        let validators = CacheValidators(etag: "\"contract\"", lastModified: nil)
        do {
            try await cache.store(
                sample, data: sampleData, validators: validators, forKey: key,
                cacheType: cacheType, context: ImageContext())
        } catch {
            return [ContractViolation(duty: "store", detail: "failed: \(error)")]
        }
        if let hit = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: cacheType) {
            if hit.image.width != sample.width || hit.image.height != sample.height {
                found.append(
                    ContractViolation(
                        duty: "query",
                        detail: "stored \(sample.width)x\(sample.height), found \(hit.image.width)x\(hit.image.height)")
                )
            }
            if hit.cacheType == .none {
                found.append(ContractViolation(duty: "query", detail: "a hit reported cache type .none"))
            }
        } else {
            found.append(ContractViolation(duty: "query", detail: "a stored entry was not found"))
        }
        // Validators matter when a load revalidates (`refreshCached`); a cache may skip reading them otherwise.
        if keepsValidators {
            let revalidating = await cache.queryImage(
                forKey: key, options: [.refreshCached], context: ImageContext(),
                cacheType: cacheType)
            if revalidating?.validators != validators {
                found.append(
                    ContractViolation(
                        duty: "validators",
                        detail:
                            "stored \(validators), found \(String(describing: revalidating?.validators)) with refreshCached"
                    ))
            }
        }
        if await cache.containsImage(forKey: key, cacheType: cacheType) == .none {
            found.append(ContractViolation(duty: "contains", detail: "a stored entry is not contained"))
        }
        if await cache.queryImage(
            forKey: key + "-absent", options: [], context: ImageContext(),
            cacheType: cacheType) != nil
        {
            found.append(ContractViolation(duty: "query", detail: "a key never stored was found"))
        }
        await cache.removeImage(forKey: key, cacheType: cacheType)
        if await cache.containsImage(forKey: key, cacheType: cacheType) != .none {
            found.append(ContractViolation(duty: "remove", detail: "a removed entry is still contained"))
        }
        if await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: cacheType) != nil {
            found.append(ContractViolation(duty: "remove", detail: "a removed entry is still found"))
        }
        found += await checkClear()
        found += await checkConcurrency()
        await cache.clear(cacheType: cacheType)
        return found
    }

    private func checkClear() async -> [ContractViolation] {
        let keys = (0..<3).map { "contract-clear-\($0)-\(UUID().uuidString)" }
        for key in keys {
            try? await cache.store(
                sample, data: sampleData, validators: nil, forKey: key, cacheType: cacheType,
                context: ImageContext())
        }
        await cache.clear(cacheType: cacheType)
        for key in keys where await cache.containsImage(forKey: key, cacheType: cacheType) != .none {
            return [ContractViolation(duty: "clear", detail: "an entry survived clear(cacheType: \(cacheType))")]
        }
        return []
    }

    private func checkConcurrency() async -> [ContractViolation] {
        let cache = self.cache
        let sample = self.sample
        let data = sampleData
        let type = cacheType
        let prefix = "contract-concurrent-\(UUID().uuidString)-"
        let missing = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<concurrentKeys {
                group.addTask {
                    let key = prefix + "\(index)"
                    do {
                        try await cache.store(
                            sample, data: data, validators: nil, forKey: key, cacheType: type,
                            context: ImageContext())
                    } catch {
                        return index
                    }
                    let hit = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: type)
                    return hit == nil ? index : nil
                }
            }
            var missing: [Int] = []
            for await index in group { if let index { missing.append(index) } }
            return missing
        }
        guard !missing.isEmpty else { return [] }
        return [
            ContractViolation(
                duty: "concurrency",
                detail: "\(missing.count) of \(concurrentKeys) concurrent stores were not found")
        ]
    }
}
