import Foundation
import WebImageCore

extension GaussianBlur {
    /// The recursive filter: down the columns first (eight samples at a time across the row, into a Float
    /// copy of the image plus the rows run past the bottom edge), then along each row (one pixel's channels
    /// at a time) straight into the output bytes.
    static func recursive(_ pixels: PixelBuffer, sigma: Double) -> PixelBuffer {
        let filter = RecursiveGaussian(sigma: sigma)
        let width = pixels.width, height = pixels.height, layout = pixels.layout
        let channels = layout.bytesPerPixel, samples = width * channels
        let rowRun = RecursiveGaussian.edgeRun(sigma: sigma, length: height)
        let columnRun = RecursiveGaussian.edgeRun(sigma: sigma, length: width)
        // The columns' results: `height` rows then `rowRun` rows run past the bottom edge.
        var columns = [Float](repeating: 0, count: (height + rowRun) * samples)
        columns.withUnsafeMutableBufferPointer { columns in
            pixels.bytes.withUnsafeBufferPointer { sourceBytes in
                let parts = partCount(samples: samples * height, count: width)
                let source = SharedPointer(sourceBytes.baseAddress!), target = SharedPointer(columns.baseAddress!)
                // Each part owns a stripe of whole pixel columns in `columns`.
                SplitWork.run(parts: parts) { part in
                    let stripe = slice(part, of: parts, count: width)
                    filterColumns(source.address + stripe.lowerBound * channels,
                                  bytesPerRow: pixels.bytesPerRow, pixelCount: stripe.count, height: height,
                                  layout: layout, run: rowRun, filter: filter,
                                  columns: target.address + stripe.lowerBound * channels, samplesPerRow: samples)
                }
            }
        }
        return makeBuffer(like: pixels) { output in
            columns.withUnsafeMutableBufferPointer { columns in
                let parts = partCount(samples: samples * height, count: height)
                let rows = SharedPointer(columns.baseAddress!), output = SharedPointer(output)
                // Each part owns a band of rows, in `columns` and in the output.
                SplitWork.run(parts: parts) { part in
                    var forward = [SIMD4<Float>](repeating: .zero, count: width + columnRun)
                    forward.withUnsafeMutableBufferPointer { forward in
                        for y in slice(part, of: parts, count: height) {
                            let row = rows.address + y * samples
                            filterRow(row, width: width, channels: channels, run: columnRun, filter: filter,
                                      forward: forward.baseAddress!)
                            FloatRow.store(row, width: width, layout: layout, into: output.address + y * samples)
                        }
                    }
                }
            }
        }
    }

    /// Runs the filter down a stripe of columns, `pixelCount` pixels wide: forward from a settled start on
    /// the first row, on past the bottom edge for `run` rows of the last row's samples, then backward from a
    /// settled start, in place.
    private static func filterColumns(_ source: UnsafePointer<UInt8>, bytesPerRow: Int, pixelCount: Int,
                                      height: Int, layout: PixelLayout, run: Int, filter: RecursiveGaussian,
                                      columns: UnsafeMutablePointer<Float>, samplesPerRow: Int) {
        let count = pixelCount * layout.bytesPerPixel
        let rows = height + run
        var input = [Float](repeating: 0, count: count)
        var edge = [Float](repeating: 0, count: count)
        input.withUnsafeMutableBufferPointer { input in
        edge.withUnsafeMutableBufferPointer { edge in
            let input = input.baseAddress!, edge = edge.baseAddress!
            func row(_ y: Int) -> UnsafeMutablePointer<Float> { columns + y * samplesPerRow }
            // Before the first row the filter has seen the first row forever, so its outputs equal it.
            FloatRow.load(source, width: pixelCount, layout: layout, into: edge)
            for y in 0..<rows {
                if y < height { FloatRow.load(source + y * bytesPerRow, width: pixelCount, layout: layout, into: input) }
                VectorLoops.recursiveStep(input: input, previous: y >= 1 ? row(y - 1) : edge,
                                          y >= 2 ? row(y - 2) : edge, y >= 3 ? row(y - 3) : edge,
                                          output: row(y), count: count, coefficients: filter)
            }
            // Past the run the forward output has settled on the last value: the backward pass starts there.
            edge.update(from: row(rows - 1), count: count)
            for y in stride(from: rows - 1, through: 0, by: -1) {
                VectorLoops.recursiveStep(input: row(y), previous: y + 1 < rows ? row(y + 1) : edge,
                                          y + 2 < rows ? row(y + 2) : edge, y + 3 < rows ? row(y + 3) : edge,
                                          output: row(y), count: count, coefficients: filter)
            }
        }
        }
    }

    /// Runs the filter along one row of samples in place: forward into `forward` (the row plus `run`
    /// pixels of its last pixel), then backward.
    private static func filterRow(_ row: UnsafeMutablePointer<Float>, width: Int, channels: Int, run: Int,
                                  filter: RecursiveGaussian, forward: UnsafeMutablePointer<SIMD4<Float>>) {
        @inline(__always) func pixel(_ x: Int) -> SIMD4<Float> {
            let p = row + x * channels
            switch channels {
            case 4: return UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
            case 3: return SIMD4(p[0], p[1], p[2], 0)
            default: return SIMD4(p[0], 0, 0, 0)
            }
        }
        let gain = SIMD4(repeating: filter.gain), c1 = SIMD4(repeating: filter.c1)
        let c2 = SIMD4(repeating: filter.c2), c3 = SIMD4(repeating: filter.c3)
        let length = width + run
        var p1 = pixel(0), p2 = p1, p3 = p1
        for x in 0..<length {
            var v = gain * pixel(min(x, width - 1))
            v.addProduct(c2, p2)
            v.addProduct(c3, p3)
            v.addProduct(c1, p1)
            forward[x] = v
            p3 = p2; p2 = p1; p1 = v
        }
        p1 = forward[length - 1]; p2 = p1; p3 = p1
        for x in stride(from: length - 1, through: 0, by: -1) {
            var v = gain * forward[x]
            v.addProduct(c2, p2)
            v.addProduct(c3, p3)
            v.addProduct(c1, p1)
            p3 = p2; p2 = p1; p1 = v
            if x < width {
                let p = row + x * channels
                for c in 0..<channels { p[c] = v[c] }
            }
        }
    }
}
