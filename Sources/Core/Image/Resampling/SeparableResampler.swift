/// The Float resampling engine, the one ``ImageResampler`` runs by default (see ``ResamplingArithmetic`` for
/// where the ``FixedPointResampler`` runs instead, and why): source rows arrive one at a time (from a whole buffer or straight from a
/// decoder), each is weighed into the few output rows whose kernel covers it (the vertical pass, over whole
/// contiguous rows, which vectorises well), and an output row is filtered horizontally and written as soon
/// as its last source row is in. Memory: the output, one float row, and one float accumulator per output
/// row still open (a handful: the kernel's height in output rows).
///
/// Pixels are mixed as Float, RGBA with premultiplied alpha (so transparent pixels' colour never bleeds
/// into visible ones), and rounded to bytes once, at the end.
struct SeparableResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let layout: PixelLayout
    let width: Int
    let height: Int

    private let columns: ResamplingWeights
    private let rows: ResamplingWeights
    /// Floats per source row (one per channel per pixel).
    private let rowFloats: Int
    /// The floats of a row some output column reads: the only ones converted and accumulated.
    private let floatSpan: Range<Int>
    /// Distance between accumulators: the row, plus slack so an RGB pixel can be read as 4 floats.
    private let slotStride: Int
    /// Accumulators kept: the most output rows one source row contributes to, so that open rows
    /// (always consecutive) never share a slot.
    private let slotCount: Int
    private var accumulators: [Float]
    private var floatRow: [Float]
    private var output: [UInt8]
    /// The next source row expected.
    private(set) var nextSourceRow = 0
    /// The lowest output row not yet emitted.
    private var lowestOpenRow = 0

    init(sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, width: Int, height: Int, filter: ResamplingFilter) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout,
            columns: ResamplingWeights(source: sourceWidth, destination: width, filter: filter),
            rows: ResamplingWeights(source: sourceHeight, destination: height, filter: filter))
    }

    /// An engine for precomputed weights (a region of a larger resample). Rows still arrive from row 0;
    /// rows and columns no output reads are passed over.
    init(sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, columns: ResamplingWeights, rows: ResamplingWeights)
    {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.layout = layout
        self.width = columns.outputCount
        self.height = rows.outputCount
        self.columns = columns
        self.rows = rows
        let span = columns.sourceSpan
        floatSpan = (span.lowerBound * layout.bytesPerPixel)..<(span.upperBound * layout.bytesPerPixel)
        rowFloats = sourceWidth * layout.bytesPerPixel
        slotStride = (rowFloats + 7) & ~3
        var most = 1
        var lo = 0
        for j in 0..<height {
            while rows.last(lo) < rows.first[j] { lo += 1 }
            most = max(most, j - lo + 1)
        }
        slotCount = most
        accumulators = [Float](repeating: 0, count: slotStride * most)
        floatRow = [Float](repeating: 0, count: slotStride)
        output = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
    }

    var isComplete: Bool { nextSourceRow >= sourceHeight }

    /// Feeds the next source row of bytes (`sourceWidth` pixels of `layout`, or more).
    mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        precondition(row.count >= rowFloats, "row is shorter than the source width")
        guard rows.sourceSpan.contains(nextSourceRow) else {
            nextSourceRow += 1
            return
        }
        let span = floatSpan
        let premultiply = layout == .rgba8
        floatRow.withUnsafeMutableBufferPointer { out in
            guard let out = out.baseAddress, let src = row.baseAddress else { return }
            if premultiply {
                // A pixel at a time as SIMD4: the colour times alpha / 255, the alpha lane times 1.
                let source = UnsafeRawPointer(src)
                let target = UnsafeMutableRawPointer(out)
                var i = span.lowerBound
                while i < span.upperBound {
                    let pixel = SIMD4<Float>(source.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self))
                    let factor = pixel.w * (1 / 255)
                    let scale = SIMD4<Float>(factor, factor, factor, 1)
                    target.storeBytes(
                        of: pixel * scale, toByteOffset: i * MemoryLayout<Float>.stride,
                        as: SIMD4<Float>.self)
                    i += 4
                }
            } else {
                for i in span { out[i] = Float(src[i]) }
            }
        }
        let floats = floatRow
        floats.withUnsafeBufferPointer { consume(floats: $0) }
    }

    /// Feeds the next source row as floats (RGBA premultiplied), `sourceWidth` pixels of `layout`.
    mutating func consume(floats row: UnsafeBufferPointer<Float>) {
        precondition(nextSourceRow < sourceHeight, "more rows than the source height")
        let y = nextSourceRow
        let span = floatSpan
        let rows = self.rows, slotCount = self.slotCount, slotStride = self.slotStride
        // The open rows that read source row y: lowestOpenRow..<end.
        var end = lowestOpenRow
        while end < height && rows.first[end] <= y { end += 1 }
        let open = lowestOpenRow
        accumulators.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress, let src = row.baseAddress else { return }
            func target(_ j: Int) -> (acc: UnsafeMutablePointer<Float>, weight: Float, starts: Bool) {
                (
                    base + (j % slotCount) * slotStride, rows.weights[rows.offset[j] + y - rows.first[j]],
                    y == rows.first[j]
                )
            }
            // Two output rows per pass where both go on accumulating: the source row is read once for both.
            var j = open
            while j < end {
                let a = target(j)
                if j + 1 < end, case let b = target(j + 1), !a.starts, !b.starts {
                    Self.accumulate(src, span, into: a.acc, a.weight, and: b.acc, b.weight)
                    j += 2
                } else {
                    Self.accumulate(src, span, into: a.acc, a.weight, starts: a.starts)
                    j += 1
                }
            }
        }
        // The rows whose last source row this was (the lowest open ones) are complete.
        var j = open
        while j < end && rows.last(j) == y {
            emit(j)
            j += 1
        }
        lowestOpenRow = j
        nextSourceRow += 1
    }

    /// `acc` set to (`starts`) or increased by `src` times `weight`, over `span`.
    @inline(__always)
    private static func accumulate(
        _ src: UnsafePointer<Float>, _ span: Range<Int>, into acc: UnsafeMutablePointer<Float>,
        _ weight: Float, starts: Bool
    ) {
        if starts {
            for i in span { acc[i] = src[i] * weight }
        } else {
            for i in span { acc[i] += src[i] * weight }
        }
    }

    /// `first` increased by `src` times `firstWeight`, `second` by `src` times `secondWeight`, over `span`,
    /// in one pass (the same sums as two passes).
    @inline(__always)
    private static func accumulate(
        _ src: UnsafePointer<Float>, _ span: Range<Int>,
        into first: UnsafeMutablePointer<Float>, _ firstWeight: Float,
        and second: UnsafeMutablePointer<Float>, _ secondWeight: Float
    ) {
        for i in span {
            let value = src[i]
            first[i] += value * firstWeight
            second[i] += value * secondWeight
        }
    }

    /// Filters output row `j`'s accumulator horizontally into the output bytes. The hot loop of a
    /// downscale: it reads the weight tables and the accumulator through pointers (no bounds checks or
    /// retains per pixel), sums each pixel's taps as one SIMD4 in the order the taps lie, and clamps and
    /// rounds the channels together (the same bytes as `byte(_:)` channel by channel).
    private mutating func emit(_ j: Int) {
        let slot = (j % slotCount) * slotStride
        let base = j * width * layout.bytesPerPixel
        let layout = self.layout
        let width = self.width
        let columns = self.columns
        accumulators.withUnsafeBufferPointer { all in
            output.withUnsafeMutableBufferPointer { outAll in
                columns.weights.withUnsafeBufferPointer { weightsAll in
                    columns.first.withUnsafeBufferPointer { firstAll in
                        columns.count.withUnsafeBufferPointer { countAll in
                            columns.offset.withUnsafeBufferPointer { offsetAll in
                                guard let acc = all.baseAddress.map({ $0 + slot }),
                                    let out = outAll.baseAddress.map({ $0 + base }),
                                    let weights = weightsAll.baseAddress, let first = firstAll.baseAddress,
                                    let count = countAll.baseAddress, let offset = offsetAll.baseAddress
                                else { return }
                                switch layout {
                                case .gray8:
                                    for x in 0..<width {
                                        let w = weights + offset[x]
                                        let s = acc + first[x]
                                        var sum: Float = 0
                                        for k in 0..<count[x] { sum += s[k] * w[k] }
                                        out[x] = byte(sum)
                                    }
                                case .rgb8:
                                    Self.pixelSums(
                                        acc, stride: 3, width: width, first: first, count: count, offset: offset,
                                        weights: weights
                                    ) { x, sum in
                                        out[x * 3] = byte(sum.x)
                                        out[x * 3 + 1] = byte(sum.y)
                                        out[x * 3 + 2] = byte(sum.z)
                                    }
                                case .rgba8:
                                    Self.pixelSums(
                                        acc, stride: 4, width: width, first: first, count: count, offset: offset,
                                        weights: weights
                                    ) { x, sum in
                                        let alpha = min(255, max(0, sum.w))
                                        var colour = SIMD4<Float>(0, 0, 0, alpha)
                                        if alpha > 0 {
                                            let unpremultiply = 255 / alpha
                                            colour = SIMD4(
                                                sum.x * unpremultiply, sum.y * unpremultiply,
                                                sum.z * unpremultiply, alpha)
                                        }
                                        UnsafeMutableRawPointer(out + x * 4).storeBytes(
                                            of: Self.bytes(colour),
                                            as: SIMD4<UInt8>.self)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Each channel of `sum` as `byte(_:)` rounds it. Lane by lane on purpose: the generic SIMD
    /// conversions and `clamped` are not specialised for SIMD4 and cost several times as much.
    @inline(__always)
    private static func bytes(_ sum: SIMD4<Float>) -> SIMD4<UInt8> {
        SIMD4(byte(sum.x), byte(sum.y), byte(sum.z), byte(sum.w))
    }

    /// The weighted sum of each output pixel's taps of the accumulator row `acc` (pixels `stride` floats
    /// apart, each read as 4 floats; the accumulators have slack after the last RGB pixel for the fourth),
    /// handed to `write` with its index. Four pixels are summed side by side, each in its own SIMD4 and in
    /// the order its taps lie (so each sum is the one a pixel-at-a-time loop makes): one pixel's taps form
    /// a chain of dependent additions, and four independent chains keep the adder busy instead of waiting
    /// on each addition's latency.
    @inline(__always)
    private static func pixelSums(
        _ acc: UnsafePointer<Float>, stride: Int, width: Int, first: UnsafePointer<Int>,
        count: UnsafePointer<Int>, offset: UnsafePointer<Int>, weights: UnsafePointer<Float>,
        _ write: (Int, SIMD4<Float>) -> Void
    ) {
        let step = stride * MemoryLayout<Float>.stride
        var x = 0
        while x + 4 <= width {
            let p0 = UnsafeRawPointer(acc + first[x] * stride), p1 = UnsafeRawPointer(acc + first[x + 1] * stride)
            let p2 = UnsafeRawPointer(acc + first[x + 2] * stride), p3 = UnsafeRawPointer(acc + first[x + 3] * stride)
            let w0 = weights + offset[x], w1 = weights + offset[x + 1]
            let w2 = weights + offset[x + 2], w3 = weights + offset[x + 3]
            let c0 = count[x], c1 = count[x + 1], c2 = count[x + 2], c3 = count[x + 3]
            let common = min(min(c0, c1), min(c2, c3))
            var s0 = SIMD4<Float>(), s1 = SIMD4<Float>(), s2 = SIMD4<Float>(), s3 = SIMD4<Float>()
            var k = 0
            while k < common {
                let o = k * step
                s0 += p0.loadUnaligned(fromByteOffset: o, as: SIMD4<Float>.self) * w0[k]
                s1 += p1.loadUnaligned(fromByteOffset: o, as: SIMD4<Float>.self) * w1[k]
                s2 += p2.loadUnaligned(fromByteOffset: o, as: SIMD4<Float>.self) * w2[k]
                s3 += p3.loadUnaligned(fromByteOffset: o, as: SIMD4<Float>.self) * w3[k]
                k += 1
            }
            // The taps past the shortest run (neighbours' runs differ by a tap or two).
            for k in common..<c0 { s0 += p0.loadUnaligned(fromByteOffset: k * step, as: SIMD4<Float>.self) * w0[k] }
            for k in common..<c1 { s1 += p1.loadUnaligned(fromByteOffset: k * step, as: SIMD4<Float>.self) * w1[k] }
            for k in common..<c2 { s2 += p2.loadUnaligned(fromByteOffset: k * step, as: SIMD4<Float>.self) * w2[k] }
            for k in common..<c3 { s3 += p3.loadUnaligned(fromByteOffset: k * step, as: SIMD4<Float>.self) * w3[k] }
            write(x, s0); write(x + 1, s1); write(x + 2, s2); write(x + 3, s3)
            x += 4
        }
        while x < width {
            let p = UnsafeRawPointer(acc + first[x] * stride), w = weights + offset[x]
            var sum = SIMD4<Float>()
            for k in 0..<count[x] { sum += p.loadUnaligned(fromByteOffset: k * step, as: SIMD4<Float>.self) * w[k] }
            write(x, sum)
            x += 1
        }
    }

    /// The output rows finished so far (later rows zero).
    var completedRows: PixelBuffer {
        PixelBuffer(width: width, height: height, layout: layout, bytes: output)
    }

    /// The resampled image; rows whose source rows never came stay zero.
    func finish() -> PixelBuffer { completedRows }
}

/// `value` rounded to the nearest byte, clamped to 0...255 (Lanczos and cubics overshoot); the fixed-point
/// engine rounds what it computes in Float the same way.
@inline(__always)
func byte(_ value: Float) -> UInt8 {
    UInt8(min(255, max(0, value)) + 0.5)
}
