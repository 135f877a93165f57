import Metrics
import WebImageCore

/// The memory cache's metrics (names in ``WebImageMetrics``), made at each recording: one made before
/// the application bootstraps its backend would stay a no-op for good.
enum MemoryCacheInstruments {
    /// Records a change of the bytes held and the images evicted by one operation; nothing when neither moved.
    static func record(costDelta: Int, evicted: Int) {
        if costDelta != 0 { Meter(label: WebImageMetrics.memoryCacheCost).increment(by: Double(costDelta)) }
        if evicted > 0 { Counter(label: WebImageMetrics.memoryCacheEvictions).increment(by: evicted) }
    }
}
