/// Resamples an image to a new size while its rows arrive one by one, holding only the output and a
/// few accumulator rows: the streaming half of thumbnail decoding.
///
/// Each output pixel is the area average of the source pixels it covers (a box filter with
/// fractional edge weights). RGBA is averaged with premultiplied alpha, so transparent pixels do not
/// bleed their (meaningless) color into the edges of opaque ones.
///
/// ```swift
/// var sampler = RowDownsampler(sourceWidth: 4000, sourceHeight: 3000, layout: .rgb8, width: 256, height: 192)
/// for row in rows { row.withUnsafeBufferPointer { sampler.consume(row: $0) } }
/// let thumbnail = sampler.finish()
/// ```
public struct RowDownsampler {
    private struct Span {
        var first: Int
        var weights: [Float]
    }

    public let sourceWidth: Int
    public let sourceHeight: Int
    public let layout: PixelLayout
    public let width: Int
    public let height: Int

    private let columnSpans: [Span]
    /// For each source row, the output rows it contributes to and with which weight.
    private let rowScale: Double
    private var output: [UInt8]
    /// Accumulators of output rows still open, keyed by output row.
    private var accumulators: [Int: [Float]] = [:]
    private var scratch: [Float]
    private var nextSourceRow = 0

    /// Prepares to turn `sourceWidth` x `sourceHeight` rows of `layout` into `width` x `height`.
    public init(sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, width: Int, height: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && width > 0 && height > 0, "sizes must be positive")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.layout = layout
        self.width = width
        self.height = height
        self.columnSpans = RowDownsampler.spans(source: sourceWidth, destination: width)
        self.rowScale = Double(sourceHeight) / Double(height)
        self.output = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        self.scratch = [Float](repeating: 0, count: width * layout.bytesPerPixel)
    }

    /// The source pixels each destination pixel covers, with the fraction of each it covers.
    private static func spans(source: Int, destination: Int) -> [Span] {
        let scale = Double(source) / Double(destination)
        return (0..<destination).map { i in
            let start = Double(i) * scale
            let end = min(Double(source), Double(i + 1) * scale)
            let first = min(source - 1, Int(start))
            let last = max(first, min(source - 1, Int((end - 1e-9).rounded(.down))))
            var weights: [Float] = []
            for j in first...last {
                let overlap = min(end, Double(j + 1)) - max(start, Double(j))
                weights.append(Float(max(0, overlap) / (end - start)))
            }
            return Span(first: first, weights: weights)
        }
    }

    /// Whether every source row has been consumed.
    public var isComplete: Bool { nextSourceRow >= sourceHeight }

    /// Feeds the next source row (`sourceWidth` pixels of `layout`, tightly packed or longer).
    public mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        precondition(nextSourceRow < sourceHeight, "more rows than the source height")
        precondition(row.count >= sourceWidth * layout.bytesPerPixel, "row is shorter than the source width")
        let channels = layout.bytesPerPixel
        let premultiply = layout == .rgba8
        // Horizontal pass into `scratch`.
        scratch.withUnsafeMutableBufferPointer { out in
            for x in 0..<width {
                let span = columnSpans[x]
                var acc: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (k, w) in span.weights.enumerated() {
                    let s = (span.first + k) * channels
                    if premultiply {
                        let a = Float(row[s + 3]) * w
                        acc.0 += Float(row[s]) * a
                        acc.1 += Float(row[s + 1]) * a
                        acc.2 += Float(row[s + 2]) * a
                        acc.3 += a
                    } else {
                        acc.0 += Float(row[s]) * w
                        if channels > 1 {
                            acc.1 += Float(row[s + 1]) * w
                            acc.2 += Float(row[s + 2]) * w
                        }
                    }
                }
                let o = x * channels
                out[o] = acc.0
                if channels > 1 { out[o + 1] = acc.1; out[o + 2] = acc.2 }
                if channels > 3 { out[o + 3] = acc.3 }
            }
        }
        // Vertical pass: add this row, weighted, to each output row whose interval it overlaps.
        let y = Double(nextSourceRow)
        let firstOut = max(0, Int((y / rowScale).rounded(.down)))
        var outRow = firstOut
        while outRow < height {
            let start = Double(outRow) * rowScale
            let end = min(Double(sourceHeight), Double(outRow + 1) * rowScale)
            if start >= y + 1 { break }
            let overlap = min(end, y + 1) - max(start, y)
            if overlap > 0 {
                let weight = Float(overlap / (end - start))
                var acc = accumulators[outRow] ?? [Float](repeating: 0, count: scratch.count)
                for i in 0..<acc.count { acc[i] += scratch[i] * weight }
                if end <= y + 1 + 1e-9 {
                    emit(outRow, acc)
                    accumulators.removeValue(forKey: outRow)
                } else {
                    accumulators[outRow] = acc
                }
            }
            outRow += 1
        }
        nextSourceRow += 1
    }

    private mutating func emit(_ row: Int, _ acc: [Float]) {
        let channels = layout.bytesPerPixel
        let base = row * width * channels
        for x in 0..<width {
            let o = x * channels
            if layout == .rgba8 {
                let a = acc[o + 3]
                if a > 0 {
                    output[base + o] = clampToByte(acc[o] / a)
                    output[base + o + 1] = clampToByte(acc[o + 1] / a)
                    output[base + o + 2] = clampToByte(acc[o + 2] / a)
                }
                output[base + o + 3] = clampToByte(a)
            } else {
                for c in 0..<channels { output[base + o + c] = clampToByte(acc[o + c]) }
            }
        }
    }

    /// The output rows finished so far (later rows zero): what a partial image shows while rows arrive.
    public var completedRows: PixelBuffer {
        PixelBuffer(width: width, height: height, layout: layout, bytes: output)
    }

    /// The resampled image. Rows never fed stay zero (transparent or black).
    public mutating func finish() -> PixelBuffer {
        for (row, acc) in accumulators { emit(row, acc) }
        accumulators.removeAll()
        return PixelBuffer(width: width, height: height, layout: layout, bytes: output)
    }
}

@inline(__always)
private func clampToByte(_ value: Float) -> UInt8 {
    UInt8(max(0, min(255, value.rounded())))
}

/// Resizes whole pixel buffers with the area-average filter of ``RowDownsampler``.
public enum ImageResampler {
    /// `buffer` resampled to `width` x `height`.
    public static func resample(_ buffer: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        if buffer.width == width && buffer.height == height { return buffer }
        var sampler = RowDownsampler(sourceWidth: buffer.width, sourceHeight: buffer.height,
                                     layout: buffer.layout, width: width, height: height)
        buffer.bytes.withUnsafeBufferPointer { all in
            for y in 0..<buffer.height {
                sampler.consume(row: UnsafeBufferPointer(rebasing: all[(y * buffer.bytesPerRow)...]))
            }
        }
        return sampler.finish()
    }

    /// The size a thumbnail of `width` x `height` gets for a requested `limit`: never larger than the
    /// source; with `preserveAspectRatio`, the largest size that fits inside `limit` keeping the
    /// shape, otherwise exactly `limit` (clamped to the source).
    public static func thumbnailSize(width: Int, height: Int, limit: PixelSize,
                                     preserveAspectRatio: Bool) -> PixelSize {
        guard limit.width > 0 || limit.height > 0 else { return PixelSize(width: width, height: height) }
        if !preserveAspectRatio {
            let w = limit.width > 0 ? min(width, limit.width) : width
            let h = limit.height > 0 ? min(height, limit.height) : height
            return PixelSize(width: w, height: h)
        }
        let sx = limit.width > 0 ? Double(limit.width) / Double(width) : .infinity
        let sy = limit.height > 0 ? Double(limit.height) / Double(height) : .infinity
        let factor = min(1, min(sx, sy))
        return PixelSize(width: max(1, Int((Double(width) * factor).rounded())),
                         height: max(1, Int((Double(height) * factor).rounded())))
    }
}

/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// A square size.
    public init(_ side: Int) { self.init(width: side, height: side) }
    public var description: String { "\(width)x\(height)" }
}
