import CResamplingKernels

/// The fixed-point resampling engine: 16-bit coefficients, 32-bit accumulators, as Pillow-SIMD and
/// libvips's `reduce` do it, on Swift's SIMD types or (where the CPU has them) AVX2 kernels that give the
/// same bytes. Where it runs by default: see ``ResamplingArithmetic``.
///
/// Rows arrive one at a time (from a whole buffer or straight from a decoder). Each source row some output
/// reads is widened to 16-bit samples once (premultiplied for RGBA) and filtered horizontally at once into
/// a ring of 16-bit rows of the output's width; when the last source row of an output row is in, that row
/// is filtered vertically from the ring and written. Horizontal first, because it reads the source where
/// it lies and leaves a row as narrow as the output, so the vertical pass, which reads every row of its
/// window per output row, works on little. Memory: the output, one widened source row, and as many
/// output-wide rows as the vertical kernel is tall.
///
/// Between the passes a sample is a 16-bit `(v − 128) × 128`: 7 fractional bits (a rounding error of
/// 1/256 level) and room for 128 levels of overshoot either side, so Lanczos3's ringing survives as it
/// does in Float. Nothing is
/// clipped to 8 bits between the passes (Pillow's way), which is why the output stays within one level of
/// the Float engine, ``SeparableResampler``: ``init(sourceWidth:sourceHeight:layout:columns:rows:input:)``
/// works out a bound on the error from the rounded coefficients and gives up (returns nil) when that bound
/// does not keep every output within one level, and for RGBA the few pixels whose alpha is too low for the
/// bound to keep their colour within a level are computed again in Float, exactly as that engine does.
struct FixedPointResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let layout: PixelLayout
    let width: Int
    let height: Int

    /// How the samples handed to the horizontal pass are scaled: it decides how many coefficient bits
    /// the 32-bit accumulators allow, and how a sum becomes a 16-bit sample between the passes.
    enum Input {
        /// Gray or RGB bytes as they are, 0...255 (rows of an image).
        case bytes
        /// Gray or RGB levels with 7 fractional bits, less 128 levels: `(v − 128) × 128` (block averages).
        case centredQ7
        /// RGBA premultiplied: each colour times alpha and alpha times 255 (levels × 255), less 32512, so
        /// the 0...65025 range fits Int16. Exact for bytes; block averages are rounded to it.
        case premultiplied(fromBlockAverages: Bool)
    }

    let columns: ResamplingWeights
    let rows: ResamplingWeights
    let horizontal: FixedPointWeights
    let vertical: FixedPointWeights
    let input: Input
    /// Int16 lanes per source pixel in a widened row: 1 for gray, 4 for RGB (the fourth unused) and RGBA.
    let lanes: Int
    /// Int16 values per output pixel in the ring: 1, 3 or 4.
    let channels: Int
    /// A gray or RGB horizontal sum becomes a sample between the passes, `(v − 128) × 128`, as
    /// `(sum + bias) >> shift + offset` (RGBA's are scaled by 128/255 too, in Float).
    let intermediateShift: Int32
    let intermediateOffset: Int32
    /// Distance between ring rows, in Int16 values: a whole number of SIMD8 vectors, plus slack.
    let ringStride: Int
    /// Ring rows: the most source rows one output row reads.
    let ringRows: Int
    /// A bound on |fixed − exact| of every output sample before it is rounded, in levels (for RGBA, of the
    /// premultiplied colour and alpha); the Float engine's own rounding included.
    let errorBound: Float

    /// One source row widened to 16 bits, `lanes` per pixel, with `horizontal.taps` pixels of slack.
    var widened: [Int16]
    var ring: [Int16]
    var output: [UInt8]
    /// RGBA only: what the Float recomputation of a low-alpha pixel reads (see `FixedPointResampler+Alpha`).
    var alphaFallback: AlphaFallback?
    /// Whether the AVX2 kernels (the `CResamplingKernels` target) run instead of the Swift ones: the same
    /// integer sums, so the same bytes, in wider vectors with `vpmaddwd`.
    let usesAVX2: Bool
    /// RGBA with AVX2 only: one output row's vertical sums, which `wi_unpremultiply_rgba` turns into bytes.
    var verticalSums: [Int32]
    /// With AVX2 only: the ring offsets of the rows an output row weighs, and (RGBA) the indices of its
    /// pixels left for the Float recomputation; reused by every output row instead of allocated per row.
    var slotScratch: [Int]
    var unsureScratch: [Int32]
    /// RGB and RGBA with AVX2 only: the widened row as pairs of neighbouring pixels (see
    /// `wi_pair_pixels_avx2`), the pairs that start at even pixels, then those that start at odd ones.
    var pairedRow: [Int16]
    /// The pairs of `pairedRow` some output reads.
    let pairRange: Range<Int>

    /// Whether this CPU runs the AVX2 kernels (x86-64 with AVX2; read once).
    static let hasAVX2 = wi_resampling_has_avx2() != 0
    /// The next source row expected.
    private(set) var nextSourceRow = 0
    /// The lowest output row not yet written.
    var lowestOpenRow = 0

    /// An engine resampling `sourceWidth` x `sourceHeight` rows of `layout` to `width` x `height` with
    /// `filter`, fed bytes; nil when fixed point cannot stay within a level of Float for these weights.
    init?(sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, width: Int, height: Int, filter: ResamplingFilter) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout,
            columns: ResamplingWeights(source: sourceWidth, destination: width, filter: filter),
            rows: ResamplingWeights(source: sourceHeight, destination: height, filter: filter),
            input: layout == .rgba8 ? .premultiplied(fromBlockAverages: false) : .bytes, usesAVX2: Self.hasAVX2)
    }

    /// An engine for precomputed weights (a region of a larger resample), fed samples scaled as `input`
    /// says. Rows still arrive from row 0; rows and columns no output reads are passed over. Nil when the
    /// bound on the error does not keep every output within a level of the Float engine. `usesAVX2` picks
    /// the AVX2 kernels (only where ``hasAVX2``) or the portable Swift ones, which give the same bytes.
    init?(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, columns: ResamplingWeights,
        rows: ResamplingWeights, input: Input, usesAVX2: Bool
    ) {
        let magnitude: Int, inputError: Double, tapMultiple: Int
        switch input {
        case .bytes: (magnitude, inputError) = (255, 0)
        case .centredQ7: (magnitude, inputError) = (16_384, 0.5 / 128)
        case .premultiplied(let averaged): (magnitude, inputError) = (32_768, averaged ? 0.5 / 255 : 0)
        }
        tapMultiple = layout == .gray8 ? 8 : 2
        // Bytes need 8 bits at least to become 7-fractional-bit samples; 22 keeps the shifts small.
        guard
            let horizontal = FixedPointWeights.of(
                columns, sampleMagnitude: magnitude, tapMultiple: tapMultiple,
                maximumBits: 22, minimumBits: 8),
            let vertical = FixedPointWeights.of(
                rows, sampleMagnitude: 32_768, tapMultiple: 1,
                maximumBits: 22, minimumBits: 8),
            // Samples between the passes hold -128...383 levels: overshoot up to Σ|w| < 2 fits.
            horizontal.largestAbsoluteSum < 1.99
        else { return nil }
        let isRGBA = layout == .rgba8
        // Half a unit of the 16-bit samples between the passes, in levels (RGBA's are scaled in Float,
        // which adds a few thousandths of a unit).
        let intermediateRounding = isRGBA ? 0.51 / 128 : 0.5 / 128
        let horizontalError =
            inputError * horizontal.largestAbsoluteSum
            + 127.5 * horizontal.largestRoundingError + intermediateRounding
        let fixedError =
            horizontalError * vertical.largestAbsoluteSum
            + 127.5 * horizontal.largestAbsoluteSum * vertical.largestRoundingError
        // The Float engine's own rounding: each of its sums adds at most half an ulp of 256 per term.
        let floatError = Double(horizontal.longestRun + vertical.longestRun + 4) * 256 / Double(1 << 24) + 0.002
        let bound = fixedError + floatError
        guard bound < 0.99 else { return nil }
        errorBound = Float(bound)

        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.layout = layout
        self.width = columns.outputCount
        self.height = rows.outputCount
        self.columns = columns
        self.rows = rows
        self.horizontal = horizontal
        self.vertical = vertical
        self.input = input
        lanes = layout == .gray8 ? 1 : 4
        channels = layout.bytesPerPixel
        let bits = Int32(horizontal.bits)
        switch input {
        case .bytes: (intermediateShift, intermediateOffset) = (bits - 7, -16_384)
        case .centredQ7: (intermediateShift, intermediateOffset) = (bits, 0)
        case .premultiplied: (intermediateShift, intermediateOffset) = (0, 0)  // scaled in Float instead
        }
        ringStride = (width * channels + 7) / 8 * 8 + 8
        ringRows = vertical.longestRun
        // Slack: the kernels read `taps` pixels from a run's first, and the pairs for AVX2 a few more.
        widened = [Int16](repeating: 0, count: (sourceWidth + horizontal.taps + 8) * lanes)
        ring = [Int16](repeating: 0, count: ringStride * ringRows)
        self.usesAVX2 = usesAVX2 && Self.hasAVX2
        verticalSums = [Int32](repeating: 0, count: isRGBA && self.usesAVX2 ? width * 4 : 0)
        slotScratch = [Int](repeating: 0, count: self.usesAVX2 ? vertical.taps : 0)
        unsureScratch = [Int32](repeating: 0, count: isRGBA && self.usesAVX2 ? width : 0)
        if self.usesAVX2 && lanes == 4 {
            let span = columns.sourceSpan
            let end = (span.upperBound - 1) / 2 + horizontal.taps / 2 + 1
            pairRange = (span.lowerBound / 2 & ~1)..<max(end, span.lowerBound / 2 & ~1)
            pairedRow = [Int16](repeating: 0, count: 2 * (pairRange.upperBound + 2) * 8)
        } else {
            pairRange = 0..<0
            pairedRow = []
        }
        output = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        if isRGBA {
            if case .premultiplied(true) = input {
                alphaFallback = AlphaFallback(floatRows: ringRows, width: sourceWidth)
            } else {
                alphaFallback = AlphaFallback(byteRows: ringRows, width: sourceWidth)
            }
        }
    }

    /// Whether this engine measured faster than the Float one for its resample (resample-bench,
    /// Benchmarks/README.md): always for gray and RGB; for RGBA only while kernels are short (at most 24
    /// taps, a reduction by 4 with Lanczos3), since the error bound grows with the taps and with it the
    /// share of low-alpha pixels computed again in Float (at 94 taps, most of them: 2.6 times Float's time).
    var outrunsFloat: Bool { layout != .rgba8 || max(horizontal.longestRun, vertical.longestRun) <= 24 }

    var isComplete: Bool { nextSourceRow >= sourceHeight }

    /// Whether the next source row is one some output reads (rows outside are passed over unread).
    var wantsNextRow: Bool { rows.sourceSpan.contains(nextSourceRow) }

    /// Feeds the next source row of bytes (`sourceWidth` pixels of `layout`, or more). Only for engines
    /// made with ``Input/bytes`` or ``Input/premultiplied(fromBlockAverages:)`` false.
    mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        precondition(row.count >= sourceWidth * layout.bytesPerPixel, "row is shorter than the source width")
        guard wantsNextRow else {
            skipRow()
            return
        }
        let span = columns.sourceSpan
        let layout = self.layout, usesAVX2 = self.usesAVX2
        if layout == .rgb8 && usesAVX2 {
            // Straight to the pairs the AVX2 horizontal pass reads, without the widened row.
            pairRGBRowWithAVX2(row)
            filterWidenedRow(alreadyPaired: true)
            return
        }
        widened.withUnsafeMutableBufferPointer { out in
            guard let out = out.baseAddress, let src = row.baseAddress else { return }
            switch (layout, usesAVX2) {
            case (.gray8, _): Self.widenGray(src, into: out, span: span)
            case (.rgb8, _): Self.widenRGB(src, into: out, span: span)  // with AVX2, paired above instead
            case (.rgba8, false): Self.widenPremultiplying(src, into: out, span: span)
            case (.rgba8, true): wi_widen_premultiplying_avx2(src, out, span.lowerBound, span.upperBound)
            }
        }
        if layout == .rgba8 { alphaFallback?.keep(row: row, y: nextSourceRow, ringRows: ringRows, span: span) }
        filterWidenedRow()
    }

    /// Feeds the next source row already widened into `widened` by `fill` (block averages, scaled as
    /// this engine's ``Input`` says, `lanes` per pixel over `columns.sourceSpan` at least).
    mutating func consumeWidened(_ fill: (UnsafeMutablePointer<Int16>) -> Void) {
        guard wantsNextRow else {
            skipRow()
            return
        }
        widened.withUnsafeMutableBufferPointer { fill($0.baseAddress!) }
        filterWidenedRow()
    }

    /// Passes over a row no output reads.
    mutating func skipRow() {
        precondition(nextSourceRow < sourceHeight, "more rows than the source height")
        nextSourceRow += 1
    }

    /// The widened row filtered horizontally into its ring row, then every output row it completes.
    /// With `alreadyPaired`, the AVX2 pairs of the row are filled already (`pairRGBRowWithAVX2`).
    private mutating func filterWidenedRow(alreadyPaired: Bool = false) {
        precondition(nextSourceRow < sourceHeight, "more rows than the source height")
        let y = nextSourceRow
        let slot = (y % ringRows) * ringStride
        let horizontal = self.horizontal, width = self.width, layout = self.layout
        let shift = intermediateShift, offset = intermediateOffset
        if usesAVX2 {
            filterWidenedRowWithAVX2(into: slot, alreadyPaired: alreadyPaired)
        } else {
            widened.withUnsafeBufferPointer { src in
                ring.withUnsafeMutableBufferPointer { ring in
                    (layout == .gray8 ? horizontal.coefficients : horizontal.repeated).withUnsafeBufferPointer {
                        coefficients in
                        let src = src.baseAddress!, out = ring.baseAddress! + slot, c = coefficients.baseAddress!
                        switch layout {
                        case .gray8:
                            Self.horizontalGray(
                                src, coefficients: c, first: horizontal.first, taps: horizontal.taps,
                                width: width, shift: shift, offset: offset, into: out)
                        case .rgb8:
                            Self.horizontalRGB(
                                src, coefficients: c, first: horizontal.first, taps: horizontal.taps,
                                width: width, shift: shift, offset: offset, into: out)
                        case .rgba8:
                            Self.horizontalRGBA(
                                src, coefficients: c, first: horizontal.first, taps: horizontal.taps,
                                width: width, bits: horizontal.bits, into: out)
                        }
                    }
                }
            }
        }
        var j = lowestOpenRow
        while j < height && rows.last(j) == y {
            emit(j)
            j += 1
        }
        lowestOpenRow = j
        nextSourceRow += 1
    }

    /// Filters output row `j` vertically from the ring and writes its bytes.
    private mutating func emit(_ j: Int) {
        if usesAVX2 {
            let lowAlpha = emitWithAVX2(row: j)
            if !lowAlpha.isEmpty { recomputeInFloat(row: j, pixels: lowAlpha) }
            return
        }
        let count = rows.count[j], firstRow = rows.first[j]
        let ringRows = self.ringRows, ringStride = self.ringStride
        let coefficients = Array(vertical.coefficients[(j * vertical.taps)..<(j * vertical.taps + count)])
        let slots = (0..<count).map { ((firstRow + $0) % ringRows) * ringStride }
        let values = width * channels
        let base = j * width * channels
        let bits = Int32(vertical.bits)
        let layout = self.layout
        var lowAlpha: [Int] = []
        ring.withUnsafeBufferPointer { ring in
            output.withUnsafeMutableBufferPointer { out in
                let ring = ring.baseAddress!, out = out.baseAddress! + base
                switch layout {
                case .gray8, .rgb8:
                    Self.verticalToBytes(
                        ring, slots: slots, coefficients: coefficients, values: values, bits: bits, into: out)
                case .rgba8:
                    lowAlpha = Self.verticalToRGBA(
                        ring, slots: slots, coefficients: coefficients, pixels: width, bits: bits,
                        errorBound: errorBound, into: out)
                }
            }
        }
        if !lowAlpha.isEmpty { recomputeInFloat(row: j, pixels: lowAlpha) }
    }

    /// The output rows finished so far (later rows zero).
    var completedRows: PixelBuffer {
        PixelBuffer(width: width, height: height, layout: layout, bytes: output)
    }

    /// The resampled image; rows whose source rows never came stay zero.
    func finish() -> PixelBuffer { completedRows }
}
