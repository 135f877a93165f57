/// The inner loops of the blur over rows of Float samples, eight lanes at a time.
///
/// Every loop works on flat sample indexes, so it does not care how many channels a pixel has. They
/// multiply and add separately rather than with `addProduct`: built for baseline x86-64 (no FMA
/// instructions), `addProduct` becomes a call to libm's `fmaf` per lane, which made the blur 10x slower.
enum VectorLoops {
    typealias Vector = SIMD8<Float>
    /// Samples one ``Vector`` holds.
    static let lanes = Vector.scalarCount

    /// `output[i] = x + c1 * (p1[i] - x) + c2 * (p2[i] - x) + c3 * (p3[i] - x)` with `x = input[i]`: one step
    /// of a third-order recursive filter applied down every column of a row at once. This is
    /// `gain * x + c1 * p1 + c2 * p2 + c3 * p3` with `gain = 1 - c1 - c2 - c3` written so that the gain
    /// never appears: it is tiny for large sigmas, and rounding it to Float would change the brightness.
    /// `output` may be `input`.
    static func recursiveStep(
        input: UnsafePointer<Float>, previous p1: UnsafePointer<Float>,
        _ p2: UnsafePointer<Float>, _ p3: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, count: Int, coefficients k: RecursiveGaussian
    ) {
        let c1 = Vector(repeating: k.c1), c2 = Vector(repeating: k.c2), c3 = Vector(repeating: k.c3)
        var i = 0
        while i + lanes <= count {
            let x = load(input + i)
            let v = x + c2 * (load(p2 + i) - x) + c3 * (load(p3 + i) - x) + c1 * (load(p1 + i) - x)
            store(v, output + i)
            i += lanes
        }
        while i < count {
            let x = input[i]
            output[i] = x + k.c2 * (p2[i] - x) + k.c3 * (p3[i] - x) + k.c1 * (p1[i] - x)
            i += 1
        }
    }

    /// `output[i] = Σ weights[k] * rows[k][i]`: one output row of a vertical convolution.
    static func weightedSum(
        rows: UnsafeBufferPointer<UnsafePointer<Float>>, weights: UnsafeBufferPointer<Float>,
        output: UnsafeMutablePointer<Float>, count: Int
    ) {
        var i = 0
        while i + lanes <= count {
            var sum = Vector(repeating: 0)
            for k in 0..<weights.count { sum += Vector(repeating: weights[k]) * load(rows[k] + i) }
            store(sum, output + i)
            i += lanes
        }
        while i < count {
            var sum: Float = 0
            for k in 0..<weights.count { sum += weights[k] * rows[k][i] }
            output[i] = sum
            i += 1
        }
    }

    /// `output[i] = Σ weights[k] * input[i + k * step]`: one row of a horizontal convolution over a row
    /// padded on both sides, where `step` is the samples per pixel.
    static func convolve(
        _ input: UnsafePointer<Float>, step: Int, weights: UnsafeBufferPointer<Float>,
        output: UnsafeMutablePointer<Float>, count: Int
    ) {
        var i = 0
        while i + lanes <= count {
            var sum = Vector(repeating: 0)
            for k in 0..<weights.count { sum += Vector(repeating: weights[k]) * load(input + i + k * step) }
            store(sum, output + i)
            i += lanes
        }
        while i < count {
            var sum: Float = 0
            for k in 0..<weights.count { sum += weights[k] * input[i + k * step] }
            output[i] = sum
            i += 1
        }
    }

    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ vector: Vector, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: vector, as: Vector.self)
    }
}
