/// What the fixed-point engine reads to compute a pixel of an RGBA resample again in Float: the source
/// itself when the engine is fed a whole buffer, otherwise the source rows of the vertical kernel's window
/// kept in a ring, as the bytes they came as (the part some output reads) or, after block averaging, as
/// premultiplied Float averages.
///
/// Why: a colour is its premultiplied value divided by alpha, so at low alpha the fixed-point error (about
/// a hundredth of a level) is multiplied by up to 510. The engine's error bound says which pixels that
/// could move by more than a level; those few (anti-aliased edges, faint shadows) are computed again here,
/// with the Float engine's operations in its order, so they are its pixels exactly (for bytes; to within
/// its rounding after block averaging).
struct AlphaFallback {
    /// The whole source, when the engine is fed one (no copy is kept then).
    private var source: PixelBuffer?
    /// Ring of source rows as bytes, `4 * width` per row; empty otherwise.
    private var bytes: [UInt8]
    /// Ring of source rows as premultiplied Float pixels, `4 * width` per row; empty otherwise.
    private var floats: [Float]
    private let width: Int
    /// Per source column, its vertical Float sum for the output row being recomputed.
    private var columnSums: [SIMD4<Float>]

    init(byteRows rows: Int, width: Int) {
        bytes = [UInt8](repeating: 0, count: rows * width * 4)
        floats = []
        self.width = width
        columnSums = [SIMD4<Float>](repeating: .zero, count: width)
    }

    init(floatRows rows: Int, width: Int) {
        bytes = []
        floats = [Float](repeating: 0, count: rows * width * 4)
        self.width = width
        columnSums = [SIMD4<Float>](repeating: .zero, count: width)
    }

    /// Reads the rows from `source`, the buffer the engine is fed.
    init(source: PixelBuffer) {
        self.source = source
        bytes = []
        floats = []
        width = source.width
        columnSums = [SIMD4<Float>](repeating: .zero, count: source.width)
    }

    /// Keeps the `span` pixels of source row `y`.
    mutating func keep(row: UnsafeBufferPointer<UInt8>, y: Int, ringRows: Int, span: Range<Int>) {
        guard source == nil else { return }
        let start = (y % ringRows) * width * 4
        bytes.withUnsafeMutableBufferPointer { ring in
            guard let src = row.baseAddress else { return }
            (ring.baseAddress! + start + span.lowerBound * 4)
                .update(from: src + span.lowerBound * 4, count: span.count * 4)
        }
    }

    /// Keeps source row `y` as premultiplied Float pixels, written by `fill`.
    mutating func keepAverages(y: Int, ringRows: Int, _ fill: (UnsafeMutablePointer<SIMD4<Float>>) -> Void) {
        let start = (y % ringRows) * width
        floats.withUnsafeMutableBytes { raw in
            fill(raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self) + start)
        }
    }

    /// The byte pixel at `p`, premultiplied, as the Float engine makes it.
    @inline(__always)
    private static func premultiplied(_ p: UnsafePointer<UInt8>) -> SIMD4<Float> {
        let alpha = Float(p[3])
        let factor = alpha * (1 / 255)
        return SIMD4(Float(p[0]) * factor, Float(p[1]) * factor, Float(p[2]) * factor, alpha)
    }

    /// Output row `j`'s `pixels` (ascending) computed in Float from the kept rows, into `out` (the row's
    /// first byte). As the Float engine does: each source column the pixels read is summed vertically once
    /// (row after row, the first term a product), then each pixel horizontally.
    mutating func recompute(
        pixels: [Int], columns: ResamplingWeights, rows: ResamplingWeights, row j: Int,
        ringRows: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        // The source columns the pixels read, as ascending disjoint spans.
        var spans: [Range<Int>] = []
        for x in pixels {
            let read = columns.first[x]..<(columns.first[x] + columns.count[x])
            if let last = spans.last, read.lowerBound <= last.upperBound {
                spans[spans.count - 1] = last.lowerBound..<max(last.upperBound, read.upperBound)
            } else {
                spans.append(read)
            }
        }
        let firstRow = rows.first[j], count = rows.count[j], rowOffset = rows.offset[j]
        let width = self.width, source = self.source
        let byteRows = source?.bytes ?? bytes
        columnSums.withUnsafeMutableBufferPointer { sums in
            for t in 0..<count {
                let y = firstRow + t, weight = rows.weights[rowOffset + t]
                if floats.isEmpty {
                    byteRows.withUnsafeBufferPointer { all in
                        let row = all.baseAddress! + (source.map { y * $0.bytesPerRow } ?? (y % ringRows) * width * 4)
                        for span in spans {
                            for c in span {
                                let p = Self.premultiplied(row + c * 4) * weight
                                sums[c] = t == 0 ? p : sums[c] + p
                            }
                        }
                    }
                } else {
                    floats.withUnsafeBytes { raw in
                        let row = raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self) + (y % ringRows) * width
                        for span in spans {
                            for c in span {
                                let p = row[c] * weight
                                sums[c] = t == 0 ? p : sums[c] + p
                            }
                        }
                    }
                }
            }
            for x in pixels {
                let first = columns.first[x], offset = columns.offset[x]
                var sum = SIMD4<Float>()
                for k in 0..<columns.count[x] { sum += sums[first + k] * columns.weights[offset + k] }
                let o = out + x * 4
                let alpha = min(255, max(0, sum.w))
                if alpha > 0 {
                    let unpremultiply = 255 / alpha
                    o[0] = byte(sum.x * unpremultiply)
                    o[1] = byte(sum.y * unpremultiply)
                    o[2] = byte(sum.z * unpremultiply)
                } else {
                    o[0] = 0; o[1] = 0; o[2] = 0
                }
                o[3] = byte(alpha)
            }
        }
    }
}

extension FixedPointResampler {
    /// Makes the low-alpha recomputation read `pixels`, the whole buffer this engine is about to be fed,
    /// instead of keeping a copy of each row.
    mutating func recomputesFrom(_ pixels: PixelBuffer) {
        if alphaFallback != nil { alphaFallback = AlphaFallback(source: pixels) }
    }

    /// Output row `j`'s `pixels` computed again in Float (see ``AlphaFallback``).
    mutating func recomputeInFloat(row j: Int, pixels: [Int]) {
        let base = j * width * 4
        let columns = self.columns, rows = self.rows, ringRows = self.ringRows
        output.withUnsafeMutableBufferPointer { out in
            alphaFallback?.recompute(
                pixels: pixels, columns: columns, rows: rows, row: j, ringRows: ringRows,
                into: out.baseAddress! + base)
        }
    }
}
