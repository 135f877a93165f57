/// For one axis of a resample, which source pixels each output pixel reads and with which weights:
/// computed once per resample, then used for every row (or column).
///
/// Output pixel `i` covers source coordinates `[i * scale, (i + 1) * scale)`, centre `(i + 0.5) * scale`.
/// Taps outside the image are dropped and the remaining weights renormalised to sum to 1, so edges keep
/// their brightness (no dark or light border) without inventing pixels beyond the image.
struct ResamplingWeights {
    /// First source index each output pixel reads.
    private(set) var first: [Int]
    /// How many consecutive source pixels each output pixel reads (at least 1).
    private(set) var count: [Int]
    /// Where each output pixel's weights start in ``weights``.
    private(set) var offset: [Int]
    /// All weights, output pixel after output pixel; each run sums to 1.
    private(set) var weights: [Float]

    /// Fixed-point forms of these weights computed so far, shared by every copy (see ``FixedPointForms``).
    private(set) var fixedPointForms = FixedPointForms()

    var outputCount: Int { first.count }

    /// The last source index output pixel `i` reads.
    func last(_ i: Int) -> Int { first[i] + count[i] - 1 }

    /// The source indices some output pixel reads (the weights are never empty).
    var sourceSpan: Range<Int> { first[0]..<(last(outputCount - 1) + 1) }

    /// The weights of output pixels `outputs` (all of them by default) of a `source` -> `destination`
    /// resample: a part is exactly that part of the whole resample (a crop of it, without the rest).
    /// Taken from ``ResamplingWeightsCache/shared`` when the same resample ran recently (a server answers
    /// the same few sizes over and over; the Lanczos taps cost a `sin` each), else computed and kept there.
    init(source: Int, destination: Int, filter: ResamplingFilter, outputs: Range<Int>? = nil) {
        precondition(source > 0 && destination > 0, "resampling needs positive sizes")
        let outputs = outputs ?? 0..<destination
        let key = ResamplingWeightsCache.Key(
            source: source, destination: destination, filter: filter,
            outputs: outputs)
        if let cached = ResamplingWeightsCache.shared.weights(for: key) {
            self = cached
            return
        }
        self = ResamplingWeights(computing: source, destination: destination, filter: filter, outputs: outputs)
        ResamplingWeightsCache.shared.keep(self, for: key)
    }

    /// Size of the arrays, in elements: what ``ResamplingWeightsCache`` counts against its budget.
    var elementCount: Int { weights.count + 3 * first.count }

    private init(computing source: Int, destination: Int, filter: ResamplingFilter, outputs: Range<Int>) {
        first = []; count = []; offset = []; weights = []
        first.reserveCapacity(outputs.count)
        count.reserveCapacity(outputs.count)
        offset.reserveCapacity(outputs.count)
        let scale = Double(source) / Double(destination)
        for i in outputs {
            let start = Double(i) * scale
            let center = start + scale / 2
            var taps: [Double]
            var lo: Int
            switch filter {
            case .nearest:
                lo = min(source - 1, Int(center))
                taps = [1]
            case .box:
                (lo, taps) = Self.areaTaps(start: start, end: start + scale, source: source)
            default:
                (lo, taps) = Self.kernelTaps(center: center, scale: scale, source: source, filter: filter)
            }
            var sum = taps.reduce(0, +)
            if sum == 0 {
                // No tap carries weight (impossible for these kernels, but never divide by zero): nearest.
                lo = min(source - 1, Int(center)); taps = [1]; sum = 1
            }
            first.append(lo)
            count.append(taps.count)
            offset.append(weights.count)
            weights.append(contentsOf: taps.map { Float($0 / sum) })
        }
    }

    /// A kernel stretched by the scale when shrinking (so it covers every source pixel), as is when enlarging.
    private static func kernelTaps(
        center: Double, scale: Double, source: Int,
        filter: ResamplingFilter
    ) -> (Int, [Double]) {
        let stretch = max(scale, 1)
        let support = filter.support * stretch
        let lo = max(0, Int((center - support + 0.5).rounded(.down)))
        let hi = min(source, Int((center + support + 0.5).rounded(.down)))
        guard hi > lo else { return (min(source - 1, Int(center)), [1]) }
        return (lo, (lo..<hi).map { filter.weight((Double($0) + 0.5 - center) / stretch) })
    }

    /// The exact coverage of each source pixel by `[start, end)` (clamped to the image).
    private static func areaTaps(start: Double, end: Double, source: Int) -> (Int, [Double]) {
        let end = min(Double(source), end)
        let lo = min(source - 1, Int(start))
        let hi = max(lo, min(source - 1, Int((end - 1e-9).rounded(.down))))
        return (lo, (lo...hi).map { max(0, min(end, Double($0 + 1)) - max(start, Double($0))) })
    }
}

/// The weights of recent resamples, so that resampling the same sizes again (what a server answering
/// the same presets does all day) never recomputes them. Bounded: at most ``capacity`` entries and
/// ``elementBudget`` array elements in all (about 4 MB); the least recently used go first.
final class ResamplingWeightsCache: Sendable {
    /// What a set of weights is the result of: the whole resample and the outputs computed.
    struct Key: Hashable, Sendable {
        let source: Int
        let destination: Int
        let filter: ResamplingFilter
        let outputs: Range<Int>
    }

    private struct Entry {
        let key: Key
        let weights: ResamplingWeights
    }

    /// The one every resample in the process shares.
    static let shared = ResamplingWeightsCache()

    let capacity: Int
    let elementBudget: Int

    /// Guards the entries, most recently used last, and their elements' total.
    private let state = Locked<(entries: [Entry], elements: Int)>((entries: [], elements: 0))

    init(capacity: Int = 32, elementBudget: Int = 1 << 19) {
        self.capacity = capacity
        self.elementBudget = elementBudget
    }

    /// The weights kept for `key`, now the most recently used; nil when none are.
    func weights(for key: Key) -> ResamplingWeights? {
        state.withLock { state in
            guard let index = state.entries.lastIndex(where: { $0.key == key }) else { return nil }
            let entry = state.entries.remove(at: index)
            state.entries.append(entry)
            return entry.weights
        }
    }

    /// Keeps `weights` for `key`, dropping the least recently used entries beyond the bounds (weights
    /// larger than half the budget are not kept at all).
    func keep(_ weights: ResamplingWeights, for key: Key) {
        let size = weights.elementCount
        guard size <= elementBudget / 2 else { return }
        state.withLock { state in
            if let index = state.entries.firstIndex(where: { $0.key == key }) {
                state.elements -= state.entries.remove(at: index).weights.elementCount
            }
            state.entries.append(Entry(key: key, weights: weights))
            state.elements += size
            while state.entries.count > capacity || state.elements > elementBudget {
                state.elements -= state.entries.removeFirst().weights.elementCount
            }
        }
    }

    /// How many sets of weights are kept (for the tests).
    var count: Int { state.withLock { $0.entries.count } }
}
