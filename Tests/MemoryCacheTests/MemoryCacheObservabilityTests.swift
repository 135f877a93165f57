import Testing
import WebImageCore
import WebImageMemoryCache
import WebImageTestSupport

/// The memory cache's metrics, in the process's one test backend (shared with parallel suites: the
/// counter is checked for growth, the meter for a recording).
@Suite("Memory cache: metrics")
struct MemoryCacheObservabilityTests {
    @Test func memoryEvictionsAreCountedAndTheCostMeterFollows() throws {
        let metrics = TestBackends.metrics
        let evictionsBefore = metrics.counterTotal(label: MemoryCacheMetrics.evictions)
        let image = Image(pixels: PixelBuffer(width: 4, height: 4, layout: .rgba8))
        let memory = MemoryCache(costLimit: .max, countLimit: 2)
        for index in 0..<5 { memory.setImage(image, forKey: "evicted-\(index)", cost: 64) }
        #expect(memory.count == 2)
        // Changes are recorded in batches (MemoryCacheMetricsRecorder.reportEvery); a limit change records at once.
        memory.countLimit = 2
        #expect(metrics.counterTotal(label: MemoryCacheMetrics.evictions) >= evictionsBefore + 3)
        #expect(try !metrics.expectMeter(MemoryCacheMetrics.cost).values.isEmpty)
    }
}
