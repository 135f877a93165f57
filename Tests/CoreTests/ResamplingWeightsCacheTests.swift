import Testing

@testable import WebImageCore

/// The cache of resampling weights: a repeated resample gets the weights it computed the first time,
/// and the cache stays within its bounds, dropping the least recently used.
@Suite("Resampling weights cache")
struct ResamplingWeightsCacheTests {
    static func weights(_ source: Int, _ destination: Int) -> ResamplingWeights {
        ResamplingWeights(source: source, destination: destination, filter: .lanczos3)
    }

    @Test("A cached set of weights equals a freshly computed one")
    func cachedEqualsComputed() {
        // Sizes no other test resamples, so the first call computes and the second is a hit.
        let first = Self.weights(9_973, 503)
        let second = Self.weights(9_973, 503)
        #expect(first.first == second.first && first.count == second.count)
        #expect(first.offset == second.offset && first.weights == second.weights)
        // A region is a different key: its weights are that part of the whole.
        let part = ResamplingWeights(source: 9_973, destination: 503, filter: .lanczos3, outputs: 100..<110)
        #expect(part.first == Array(first.first[100..<110]))
        #expect(part.weights == Array(first.weights[first.offset[100]..<(first.offset[109] + first.count[109])]))
    }

    @Test("Bounded by entries and by elements, least recently used dropped first")
    func bounded() {
        let cache = ResamplingWeightsCache(capacity: 3, elementBudget: 40_000)
        func key(_ destination: Int) -> ResamplingWeightsCache.Key {
            .init(source: 1_000, destination: destination, filter: .lanczos3, outputs: 0..<destination)
        }
        for destination in [100, 101, 102] { cache.keep(Self.weights(1_000, destination), for: key(destination)) }
        #expect(cache.count == 3)
        #expect(cache.weights(for: key(100)) != nil)  // now the most recently used
        cache.keep(Self.weights(1_000, 103), for: key(103))
        #expect(cache.count == 3)
        #expect(cache.weights(for: key(101)) == nil)
        #expect(cache.weights(for: key(100)) != nil)
        // Weights over half the element budget are not kept.
        cache.keep(
            Self.weights(10_000, 5_000),
            for: .init(
                source: 10_000, destination: 5_000, filter: .lanczos3,
                outputs: 0..<5_000))
        #expect(cache.count == 3)
    }
}
