/// One axis of a resample in fixed point: the Float weights of a ``ResamplingWeights`` rounded to 16-bit
/// integers with `bits` fractional bits, every output's run padded with zeros to the same length (so the
/// kernels read a fixed number of taps and index by multiplication), and the rounding error the
/// ``FixedPointResampler`` bounds its output with.
///
/// Each run is rounded by largest remainders: every coefficient is its weight times 2^bits rounded down or
/// up, and the run sums to exactly 2^bits, so a flat image stays exactly flat and the rounding errors of
/// one run sum to zero (which is what lets the error bound use the distance of a sample from mid-grey, not
/// from zero).
struct FixedPointWeights {
    /// Fractional bits of the coefficients: a coefficient `c` weighs `c / 2^bits`.
    let bits: Int
    /// Taps read per output (the longest run, rounded up to `tapMultiple`); shorter runs end in zeros.
    let taps: Int
    /// First source index each output reads; `first[i] + taps` may pass the source's end, where the
    /// coefficients are zero (the row the kernels read has slack there).
    let first: [Int]
    /// `taps` coefficients per output, output after output.
    let coefficients: [Int16]
    /// The largest sum of absolute weights of one output: how much a kernel can amplify (Lanczos3 about
    /// 1.3; 1 for kernels with no negative lobe).
    let largestAbsoluteSum: Double
    /// The largest sum over one output of |coefficient / 2^bits − weight|: the coefficients' share of the
    /// output error, per level of distance of the samples from mid-grey.
    let largestRoundingError: Double
    /// The most taps of one output before padding.
    let longestRun: Int
    /// Four-lane layouts (`tapMultiple` 2) only: each coefficient repeated four times, as the Swift
    /// kernels read them (one per lane).
    let repeated: [Int16]
    /// Four-lane layouts only: each pair of taps `(c0, c1)` as the 32-bit value `vpmaddwd` weighs a pair of
    /// pixels by, repeated four times, as the AVX2 kernels read them.
    let pairs: [Int32]

    /// The fixed-point form of `weights` for these parameters: computed once per set of weights and kept
    /// with them (see ``FixedPointForms``), since a server resamples the same few sizes over and over.
    static func of(
        _ weights: ResamplingWeights, sampleMagnitude: Int, tapMultiple: Int, maximumBits: Int,
        minimumBits: Int
    ) -> FixedPointWeights? {
        let key = FixedPointForms.Key(
            sampleMagnitude: sampleMagnitude, tapMultiple: tapMultiple, maximumBits: maximumBits,
            minimumBits: minimumBits)
        return weights.fixedPointForms.form(key) {
            FixedPointWeights(
                weights, sampleMagnitude: sampleMagnitude, tapMultiple: tapMultiple, maximumBits: maximumBits,
                minimumBits: minimumBits)
        }
    }

    /// The weights of `weights` with as many fractional bits as keep every coefficient within Int16 and
    /// every sum of `taps` products of a sample of magnitude up to `sampleMagnitude` within Int32, at most
    /// `maximumBits`; nil when not even `minimumBits` do (a kernel amplifying too much for 16 bits).
    init?(
        _ weights: ResamplingWeights, sampleMagnitude: Int, tapMultiple: Int, maximumBits: Int,
        minimumBits: Int
    ) {
        var largestWeight: Float = 0
        var absoluteSum = 0.0
        var longest = 1
        for i in 0..<weights.outputCount {
            var sum = 0.0
            for k in 0..<weights.count[i] {
                let w = weights.weights[weights.offset[i] + k]
                largestWeight = max(largestWeight, abs(w))
                sum += Double(abs(w))
            }
            absoluteSum = max(absoluteSum, sum)
            longest = max(longest, weights.count[i])
        }
        // A coefficient must fit Int16, and a sum of products stay below 2^31 with room for the
        // rounding bias added before the shift (hence 2^30 of headroom rather than 2^31).
        var bits = maximumBits
        while bits >= minimumBits {
            let scale = Double(1 << bits)
            let fitsInt16 = (Double(largestWeight) * scale).rounded(.up) <= Double(Int16.max)
            let fitsInt32 = (absoluteSum * scale + Double(longest)) * Double(sampleMagnitude) < Double(1 << 30)
            if fitsInt16 && fitsInt32 { break }
            bits -= 1
        }
        guard bits >= minimumBits else { return nil }
        self.bits = bits
        largestAbsoluteSum = absoluteSum
        longestRun = longest
        let taps = (longest + tapMultiple - 1) / tapMultiple * tapMultiple
        self.taps = taps
        var coefficients = [Int16](repeating: 0, count: weights.outputCount * taps)
        var largestError = 0.0
        let one = 1 << bits
        for i in 0..<weights.outputCount {
            let count = weights.count[i], offset = weights.offset[i]
            var floors = [Int](repeating: 0, count: count)
            var remainders = [(fraction: Double, tap: Int)]()
            remainders.reserveCapacity(count)
            var total = 0
            for k in 0..<count {
                let exact = Double(weights.weights[offset + k]) * Double(one)
                let low = exact.rounded(.down)
                floors[k] = Int(low)
                total += Int(low)
                remainders.append((exact - low, k))
            }
            // The taps with the largest fractions are rounded up until the run sums to 2^bits.
            remainders.sort { $0.fraction > $1.fraction || ($0.fraction == $1.fraction && $0.tap < $1.tap) }
            var missing = one - total
            var r = 0
            while missing > 0 {
                floors[remainders[r % count].tap] += 1
                missing -= 1
                r += 1
            }
            var error = 0.0
            for k in 0..<count {
                coefficients[i * taps + k] = Int16(floors[k])
                error += abs(Double(floors[k]) / Double(one) - Double(weights.weights[offset + k]))
            }
            largestError = max(largestError, error)
        }
        self.coefficients = coefficients
        largestRoundingError = largestError
        first = weights.first
        if tapMultiple == 2 {
            var repeated = [Int16](repeating: 0, count: coefficients.count * 4)
            var pairs = [Int32](repeating: 0, count: coefficients.count * 2)
            for (i, c) in coefficients.enumerated() { for lane in 0..<4 { repeated[i * 4 + lane] = c } }
            for pair in 0..<(coefficients.count / 2) {
                let low = UInt32(UInt16(bitPattern: coefficients[2 * pair]))
                let high = UInt32(UInt16(bitPattern: coefficients[2 * pair + 1]))
                for lane in 0..<4 { pairs[pair * 4 + lane] = Int32(bitPattern: low | high << 16) }
            }
            self.repeated = repeated
            self.pairs = pairs
        } else {
            repeated = []
            pairs = []
        }
    }
}

/// The fixed-point forms of one ``ResamplingWeights`` computed so far, shared by every copy of those
/// weights and so by every resample ``ResamplingWeightsCache`` hands them to: rounding the coefficients
/// (a sort per output) happens once per size, not once per request.
final class FixedPointForms: Sendable {
    /// The parameters a form was computed for.
    struct Key: Hashable {
        let sampleMagnitude: Int
        let tapMultiple: Int
        let maximumBits: Int
        let minimumBits: Int
    }

    /// Guards the forms computed so far by their parameters (nil where 16 bits do not fit): one or two.
    private let forms = Locked<[Key: FixedPointWeights?]>([:])

    /// The form for `key`, computed by `compute` the first time.
    func form(_ key: Key, compute: () -> FixedPointWeights?) -> FixedPointWeights? {
        if let known = forms.withLock({ $0[key] }) { return known }
        let computed = compute()
        forms.withLock { $0[key] = computed }
        return computed
    }
}
