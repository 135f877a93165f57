import Foundation
import WebImageCore

extension GaussianBlur {
    /// The kernel reaches this many sigmas each side: 99.7 % of the gaussian's weight.
    static let kernelReachInSigmas = 3.0

    /// The sampled gaussian, `2 * radius + 1` weights summing to 1.
    static func kernel(sigma: Double) -> [Float] {
        let radius = max(1, Int((kernelReachInSigmas * sigma).rounded(.up)))
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        return weights.map { Float($0 / total) }
    }

    /// Separable convolution: each band of output rows keeps a ring of horizontally filtered rows (the
    /// `2 * radius + 1` its next row needs) and sums them down the columns.
    static func convolved(_ pixels: PixelBuffer, sigma: Double) -> PixelBuffer {
        let weights = kernel(sigma: sigma)
        let radius = weights.count / 2, taps = weights.count
        let width = pixels.width, height = pixels.height, layout = pixels.layout
        let channels = layout.bytesPerPixel, samples = width * channels
        let parts = partCount(samples: samples * height, count: height)
        return makeBuffer(like: pixels) { output in
            pixels.bytes.withUnsafeBufferPointer { sourceBytes in
                weights.withUnsafeBufferPointer { weights in
                    let source = SharedPointer(sourceBytes.baseAddress!), output = SharedPointer(output)
                    let kernel = SharedPointer(weights.baseAddress!)
                    // Each part only reads the source and writes its own rows of the output.
                    SplitWork.run(parts: parts) { part in
                        let weights = UnsafeBufferPointer(start: kernel.address, count: taps)
                        var padded = [Float](repeating: 0, count: (width + 2 * radius) * channels)
                        var ring = [Float](repeating: 0, count: taps * samples)
                        var sum = [Float](repeating: 0, count: samples)
                        var rows = [UnsafePointer<Float>]()
                        rows.reserveCapacity(taps)
                        padded.withUnsafeMutableBufferPointer { padded in
                            ring.withUnsafeMutableBufferPointer { ring in
                                sum.withUnsafeMutableBufferPointer { sum in
                                    let band = slice(part, of: parts, count: height)
                                    var nextRow = max(0, band.lowerBound - radius)
                                    for y in band {
                                        while nextRow <= min(height - 1, y + radius) {
                                            let row = source.address + nextRow * pixels.bytesPerRow
                                            filterRow(
                                                row, width: width, layout: layout, radius: radius,
                                                weights: weights, padded: padded.baseAddress!,
                                                output: ring.baseAddress! + (nextRow % taps) * samples)
                                            nextRow += 1
                                        }
                                        rows.removeAll(keepingCapacity: true)
                                        for k in 0..<taps {
                                            let row = min(max(y - radius + k, 0), height - 1)
                                            rows.append(UnsafePointer(ring.baseAddress! + (row % taps) * samples))
                                        }
                                        rows.withUnsafeBufferPointer { rows in
                                            VectorLoops.weightedSum(
                                                rows: rows, weights: weights, output: sum.baseAddress!,
                                                count: samples)
                                        }
                                        FloatRow.store(
                                            sum.baseAddress!, width: width, layout: layout,
                                            into: output.address + y * samples)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One source row converted to samples, padded with `radius` copies of its edge pixels each side and
    /// convolved along the row into `output`.
    private static func filterRow(
        _ source: UnsafePointer<UInt8>, width: Int, layout: PixelLayout, radius: Int,
        weights: UnsafeBufferPointer<Float>, padded: UnsafeMutablePointer<Float>,
        output: UnsafeMutablePointer<Float>
    ) {
        let channels = layout.bytesPerPixel
        let interior = padded + radius * channels
        FloatRow.load(source, width: width, layout: layout, into: interior)
        let last = interior + (width - 1) * channels
        for p in 0..<radius {
            for c in 0..<channels {
                padded[p * channels + c] = interior[c]
                last[(p + 1) * channels + c] = last[c]
            }
        }
        VectorLoops.convolve(padded, step: channels, weights: weights, output: output, count: width * channels)
    }
}
