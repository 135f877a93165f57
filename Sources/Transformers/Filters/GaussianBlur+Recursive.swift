import Foundation
import WebImageCore

extension GaussianBlur {
    /// Samples are kept between the two passes as 16-bit fixed point with 8 fractional bits: half the
    /// memory of Float, and 1/256 of a level is far below what the second pass and the final rounding keep.
    static let fixedPointScale: Float = 256
    /// The working set of one stripe of the column pass: 512 KiB, so that it stays in a core's cache
    /// between the forward and the backward run.
    static let stripeBytes = 1 << 19
    /// Rows the row pass filters before handing them to the stripes: each stripe then receives a block of
    /// this many consecutive rows at once, rather than one short piece per row in a different memory page.
    static let rowGroup = 16

    /// The recursive filter: along each row (one pixel's channels at a time) into 16-bit fixed point stored
    /// stripe by stripe (a stripe's rows next to each other), then down the columns of each stripe, narrow
    /// enough to stay in cache, eight samples at a time, straight into the output bytes.
    static func recursive(_ pixels: PixelBuffer, sigma: Double) -> PixelBuffer {
        let passes = RecursiveGaussian.passes(sigma: sigma)
        let passSigma = sigma / Double(passes).squareRoot()
        let filter = RecursiveGaussian(sigma: passSigma)
        let width = pixels.width, height = pixels.height, layout = pixels.layout
        let channels = layout.bytesPerPixel, samples = width * channels
        let rowRun = RecursiveGaussian.edgeRun(sigma: passSigma, length: width)
        let columnRun = RecursiveGaussian.edgeRun(sigma: passSigma, length: height)
        let parts = partCount(samples: samples * height, count: height)
        // Stripes are a multiple of eight pixels wide, so a stripe's rows are whole vectors.
        let fitting = stripeBytes / (MemoryLayout<Float>.size * (height + columnRun) * channels)
        let stripeWidth = max(VectorLoops.lanes, fitting / VectorLoops.lanes * VectorLoops.lanes)
        let stripes = (width + stripeWidth - 1) / stripeWidth
        let stripeSamples = stripeWidth * channels
        /// Where stripe `stripe` starts in the fixed-point copy; its rows are `pixelCount * channels` apart.
        @Sendable func stripeStart(_ stripe: Int) -> Int { stripe * height * stripeSamples }
        @Sendable func stripePixels(_ stripe: Int) -> Int { min(stripeWidth, width - stripe * stripeWidth) }

        let rowsDone = [UInt16](unsafeUninitializedCapacity: samples * height) { rowsDone, initialized in
            pixels.bytes.withUnsafeBufferPointer { sourceBytes in
                let source = SharedPointer(sourceBytes.baseAddress!), target = SharedPointer(rowsDone.baseAddress!)
                // Each part owns a band of rows, in every stripe of `rowsDone`.
                SplitWork.run(parts: parts) { part in
                    var group = [Float](repeating: 0, count: rowGroup * samples)
                    var forward = [SIMD4<Float>](repeating: .zero, count: 2 * (width + rowRun))
                    group.withUnsafeMutableBufferPointer { group in
                        forward.withUnsafeMutableBufferPointer { forward in
                            let band = slice(part, of: parts, count: height)
                            for first in stride(from: band.lowerBound, to: band.upperBound, by: rowGroup) {
                                let count = min(rowGroup, band.upperBound - first)
                                for r in 0..<count {
                                    FloatRow.load(
                                        source.address + (first + r) * pixels.bytesPerRow, width: width,
                                        layout: layout, into: group.baseAddress! + r * samples)
                                }
                                // Two rows at a time: their recursions are independent, so one fills the other's
                                // wait for the previous step.
                                for r in stride(from: 0, to: count, by: 2) {
                                    let row = group.baseAddress! + r * samples
                                    let second = r + 1 < count ? row + samples : nil
                                    for _ in 0..<passes {
                                        filterRows(
                                            row, second, width: width, channels: channels, run: rowRun,
                                            filter: filter, forward: forward.baseAddress!)
                                    }
                                }
                                for stripe in 0..<stripes {
                                    let pieceSamples = stripePixels(stripe) * channels
                                    let destination = target.address + stripeStart(stripe) + first * pieceSamples
                                    for r in 0..<count {
                                        storeFixed(
                                            group.baseAddress! + r * samples + stripe * stripeSamples,
                                            count: pieceSamples, into: destination + r * pieceSamples)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            initialized = samples * height
        }
        let columnParts = min(parts, stripes)
        return makeBuffer(like: pixels) { output in
            rowsDone.withUnsafeBufferPointer { rowsDone in
                let source = SharedPointer(rowsDone.baseAddress!), target = SharedPointer(output)
                // Each part owns whole stripes of pixel columns of the output.
                SplitWork.run(parts: columnParts) { part in
                    var columns = [Float](repeating: 0, count: (height + columnRun) * stripeSamples)
                    var edges = [Float](repeating: 0, count: 2 * stripeSamples)
                    columns.withUnsafeMutableBufferPointer { columns in
                        edges.withUnsafeMutableBufferPointer { edges in
                            for stripe in slice(part, of: columnParts, count: stripes) {
                                filterColumns(
                                    source.address + stripeStart(stripe), pixelCount: stripePixels(stripe),
                                    height: height, layout: layout, run: columnRun, filter: filter,
                                    passes: passes, columns: columns.baseAddress!, edges: edges.baseAddress!,
                                    output: target.address + stripe * stripeSamples, outputRowSamples: samples)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs the filter `passes` times down one stripe of columns, `pixelCount` pixels wide (its rows packed
    /// one after the other in `source`): forward from a settled start on the first row, on past the bottom
    /// edge for `run` rows of the last row's samples, then backward from a settled start, all in `columns`;
    /// the last pass writes the stripe's pixels to `output`, whose rows are `outputRowSamples` apart.
    /// `edges` holds two rows of scratch.
    private static func filterColumns(
        _ source: UnsafePointer<UInt16>, pixelCount: Int,
        height: Int, layout: PixelLayout, run: Int, filter: RecursiveGaussian,
        passes: Int, columns: UnsafeMutablePointer<Float>,
        edges: UnsafeMutablePointer<Float>,
        output: UnsafeMutablePointer<UInt8>, outputRowSamples: Int
    ) {
        let count = pixelCount * layout.bytesPerPixel
        let rows = height + run
        let edge = edges, lastRow = edges + count
        func row(_ y: Int) -> UnsafeMutablePointer<Float> { columns + y * count }
        for y in 0..<height { loadFixed(source + y * count, count: count, into: row(y)) }
        for pass in 0..<passes {
            // Before the first row the filter has seen the first row forever, so its outputs equal it.
            edge.update(from: row(0), count: count)
            lastRow.update(from: row(height - 1), count: count)
            for y in 0..<rows {
                if y >= height { row(y).update(from: lastRow, count: count) }
                VectorLoops.recursiveStep(
                    input: row(y), previous: y >= 1 ? row(y - 1) : edge,
                    y >= 2 ? row(y - 2) : edge, y >= 3 ? row(y - 3) : edge,
                    output: row(y), count: count, coefficients: filter)
            }
            // Past the run the forward output has settled on the last value: the backward pass starts there.
            edge.update(from: row(rows - 1), count: count)
            let isLast = pass == passes - 1
            for y in stride(from: rows - 1, through: 0, by: -1) {
                VectorLoops.recursiveStep(
                    input: row(y), previous: y + 1 < rows ? row(y + 1) : edge,
                    y + 2 < rows ? row(y + 2) : edge, y + 3 < rows ? row(y + 3) : edge,
                    output: row(y), count: count, coefficients: filter)
                if isLast && y < height {
                    FloatRow.store(row(y), width: pixelCount, layout: layout, into: output + y * outputRowSamples)
                }
            }
        }
    }

    /// Runs the filter along one or two rows of samples in place: forward into `forward` (each row plus
    /// `run` pixels of its last pixel), then backward. With no `second` row, the first is filtered twice over
    /// (the second result is dropped), which costs nothing extra in a step-latency-bound loop.
    private static func filterRows(
        _ first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>?,
        width: Int, channels: Int, run: Int, filter: RecursiveGaussian,
        forward: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let other = second ?? first
        @inline(__always) func pixel(_ row: UnsafeMutablePointer<Float>, _ x: Int) -> SIMD4<Float> {
            let p = row + x * channels
            switch channels {
            case 4: return UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
            case 3: return SIMD4(p[0], p[1], p[2], 0)
            default: return SIMD4(p[0], 0, 0, 0)
            }
        }
        // As VectorLoops.recursiveStep, with the newest output's product added last: only that multiply and
        // add wait for the previous step.
        let c1 = SIMD4(repeating: filter.c1), c2 = SIMD4(repeating: filter.c2), c3 = SIMD4(repeating: filter.c3)
        @inline(__always) func step(
            _ input: SIMD4<Float>, _ p1: SIMD4<Float>, _ p2: SIMD4<Float>,
            _ p3: SIMD4<Float>
        ) -> SIMD4<Float> {
            (input + c2 * (p2 - input) + c3 * (p3 - input) - c1 * input) + c1 * p1
        }
        let length = width + run
        let forwardOther = forward + length
        var a1 = pixel(first, 0), a2 = a1, a3 = a1
        var b1 = pixel(other, 0), b2 = b1, b3 = b1
        for x in 0..<length {
            let source = min(x, width - 1)
            let a = step(pixel(first, source), a1, a2, a3)
            let b = step(pixel(other, source), b1, b2, b3)
            forward[x] = a; forwardOther[x] = b
            a3 = a2; a2 = a1; a1 = a
            b3 = b2; b2 = b1; b1 = b
        }
        a1 = forward[length - 1]; a2 = a1; a3 = a1
        b1 = forwardOther[length - 1]; b2 = b1; b3 = b1
        for x in stride(from: length - 1, through: 0, by: -1) {
            let a = step(forward[x], a1, a2, a3)
            let b = step(forwardOther[x], b1, b2, b3)
            a3 = a2; a2 = a1; a1 = a
            b3 = b2; b2 = b1; b1 = b
            if x < width {
                let p = first + x * channels, q = other + x * channels
                for c in 0..<channels { p[c] = a[c] }
                if second != nil { for c in 0..<channels { q[c] = b[c] } }
            }
        }
    }

    /// Samples (0...255) to 16-bit fixed point, rounded and clamped (a plain loop the compiler vectorises).
    private static func storeFixed(
        _ samples: UnsafePointer<Float>, count: Int, into fixed: UnsafeMutablePointer<UInt16>
    ) {
        let highest = 255 * fixedPointScale
        for i in 0..<count {
            let value = min(max(samples[i] * fixedPointScale, 0), highest)
            fixed[i] = UInt16(truncatingIfNeeded: (value + FloatRow.roundingMagic).bitPattern)
        }
    }

    /// 16-bit fixed point back to samples (a plain loop the compiler vectorises).
    private static func loadFixed(_ fixed: UnsafePointer<UInt16>, count: Int, into samples: UnsafeMutablePointer<Float>)
    {
        let unscale = 1 / fixedPointScale
        for i in 0..<count { samples[i] = Float(fixed[i]) * unscale }
    }
}
