/// ``BoxReducer`` for the fixed-point engine: shrinks rows by whole factors (`factorX` x `factorY` blocks
/// averaged, premultiplied for RGBA) while they stream in, in integers, and hands each reduced row to a
/// ``FixedPointResampler`` widened to its 16-bit samples: gray and RGB levels with 7 fractional bits, RGBA
/// premultiplied levels × 255 (and, for its low-alpha recomputation, as Float).
///
/// Block sums are exact (UInt32: up to 65025 × the block's pixels); only the division into an average
/// rounds, by at most half a unit, which the engine's error bound counts.
struct FixedPointBoxReducer {
    let factorX: Int
    let factorY: Int
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let layout: PixelLayout
    private let reducedWidth: Int
    /// Sums of the current block row: `reducedWidth` pixels of `layout.bytesPerPixel` channels.
    private var sums: [UInt32]
    private var rowsInBlock = 0
    private var sourceRow = 0
    private(set) var next: FixedPointResampler

    /// The largest block whose sums fit UInt32: 66,051 pixels of 65025 (premultiplied RGBA).
    static let largestBlock = Int(UInt32.max / 65_025)

    /// `usesAVX2` as ``FixedPointResampler``'s. Nil when the engine for the reduced rows would not stay within a level of Float, or blocks are
    /// larger than ``largestBlock``.
    init?(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, factorX: Int, factorY: Int,
        width: Int, height: Int, filter: ResamplingFilter, usesAVX2: Bool
    ) {
        guard factorX.multipliedReportingOverflow(by: factorY).partialValue <= Self.largestBlock,
            factorX <= Self.largestBlock, factorY <= Self.largestBlock
        else { return nil }
        let reducedWidth = BoxReducer.reducedSize(source: sourceWidth, factor: factorX)
        let reducedHeight = BoxReducer.reducedSize(source: sourceHeight, factor: factorY)
        let averaged = factorX > 1 || factorY > 1
        let input: FixedPointResampler.Input =
            layout == .rgba8
            ? .premultiplied(fromBlockAverages: averaged)
            : (averaged ? .centredQ7 : .bytes)
        guard
            let next = FixedPointResampler(
                sourceWidth: reducedWidth, sourceHeight: reducedHeight, layout: layout,
                columns: ResamplingWeights(source: reducedWidth, destination: width, filter: filter),
                rows: ResamplingWeights(source: reducedHeight, destination: height, filter: filter), input: input,
                usesAVX2: usesAVX2)
        else { return nil }
        self.next = next
        self.factorX = factorX
        self.factorY = factorY
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.layout = layout
        self.reducedWidth = reducedWidth
        sums = [UInt32](repeating: 0, count: averaged ? reducedWidth * layout.bytesPerPixel : 0)
    }

    mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        if factorX == 1 && factorY == 1 { return next.consume(row: row) }
        precondition(row.count >= sourceWidth * layout.bytesPerPixel, "row is shorter than the source width")
        let factorX = self.factorX, sourceWidth = self.sourceWidth, reducedWidth = self.reducedWidth
        let layout = self.layout
        sums.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress, let src = row.baseAddress else { return }
            for block in 0..<reducedWidth {
                let end = min(sourceWidth, (block + 1) * factorX)
                switch layout {
                case .gray8:
                    var sum: UInt32 = 0
                    for x in (block * factorX)..<end { sum &+= UInt32(src[x]) }
                    sums[block] &+= sum
                case .rgb8:
                    var sum = SIMD4<UInt32>()
                    for x in (block * factorX)..<end {
                        sum &+= SIMD4(UInt32(src[x * 3]), UInt32(src[x * 3 + 1]), UInt32(src[x * 3 + 2]), 0)
                    }
                    sums[block * 3] &+= sum.x; sums[block * 3 + 1] &+= sum.y; sums[block * 3 + 2] &+= sum.z
                case .rgba8:
                    var sum = SIMD4<UInt32>()
                    for x in (block * factorX)..<end {
                        let p = SIMD4<UInt32>(
                            truncatingIfNeeded: UnsafeRawPointer(src + x * 4).loadUnaligned(as: SIMD4<UInt8>.self))
                        sum &+= p &* SIMD4(p.w, p.w, p.w, 255)
                    }
                    for c in 0..<4 { sums[block * 4 + c] &+= sum[c] }
                }
            }
        }
        rowsInBlock += 1
        sourceRow += 1
        if rowsInBlock == factorY || sourceRow == sourceHeight { flush() }
    }

    /// Hands the block row's averages to the engine and starts the next block row.
    private mutating func flush() {
        defer {
            for i in sums.indices { sums[i] = 0 }
            rowsInBlock = 0
        }
        guard next.wantsNextRow else { return next.skipRow() }
        let factorX = self.factorX, sourceWidth = self.sourceWidth, reducedWidth = self.reducedWidth
        let rows = UInt32(rowsInBlock), layout = self.layout
        func pixelCount(_ block: Int) -> UInt32 {
            rows * UInt32(min(sourceWidth, (block + 1) * factorX) - block * factorX)
        }
        sums.withUnsafeBufferPointer { sums in
            if layout == .rgba8 {
                let y = next.nextSourceRow, ringRows = next.ringRows
                next.alphaFallback?.keepAverages(y: y, ringRows: ringRows) { out in
                    for block in 0..<reducedWidth {
                        let count = Double(pixelCount(block))
                        let s = block * 4
                        out[block] = SIMD4(
                            Float(Double(sums[s]) / (255 * count)), Float(Double(sums[s + 1]) / (255 * count)),
                            Float(Double(sums[s + 2]) / (255 * count)), Float(Double(sums[s + 3]) / (255 * count)))
                    }
                }
            }
            next.consumeWidened { out in
                switch layout {
                case .gray8, .rgb8:
                    // (v − 128) × 128 from the sum of `count` levels, rounded: (2 × 128 × sum + count) / (2 × count).
                    let channels = layout.bytesPerPixel, lanes = layout == .gray8 ? 1 : 4
                    for block in 0..<reducedWidth {
                        let count = UInt64(pixelCount(block))
                        for c in 0..<channels {
                            let q7 = (UInt64(sums[block * channels + c]) * 256 + count) / (2 * count)
                            out[block * lanes + c] = Int16(Int64(q7) - 16_384)
                        }
                    }
                case .rgba8:
                    for block in 0..<reducedWidth {
                        let count = UInt64(pixelCount(block))
                        for c in 0..<4 {
                            let average = (2 * UInt64(sums[block * 4 + c]) + count) / (2 * count)
                            out[block * 4 + c] = Int16(Int64(average) - 32_512)
                        }
                    }
                }
            }
        }
    }
}
