/// The inner loops of the blur over rows of Float samples, eight lanes at a time.
///
/// Every loop works on flat sample indexes, so it does not care how many channels a pixel has.
enum VectorLoops {
    typealias Vector = SIMD8<Float>
    /// Samples one ``Vector`` holds.
    static let lanes = Vector.scalarCount

    /// `output[i] = gain * input[i] + c1 * p1[i] + c2 * p2[i] + c3 * p3[i]`: one step of a third-order
    /// recursive filter applied down every column of a row at once. `output` may be `input`.
    static func recursiveStep(input: UnsafePointer<Float>, previous p1: UnsafePointer<Float>,
                              _ p2: UnsafePointer<Float>, _ p3: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, count: Int, coefficients k: RecursiveGaussian) {
        let gain = Vector(repeating: k.gain), c1 = Vector(repeating: k.c1)
        let c2 = Vector(repeating: k.c2), c3 = Vector(repeating: k.c3)
        var i = 0
        while i + lanes <= count {
            var v = gain * load(input + i)
            v.addProduct(c1, load(p1 + i))
            v.addProduct(c2, load(p2 + i))
            v.addProduct(c3, load(p3 + i))
            store(v, output + i)
            i += lanes
        }
        while i < count {
            output[i] = k.gain * input[i] + k.c1 * p1[i] + k.c2 * p2[i] + k.c3 * p3[i]
            i += 1
        }
    }

    /// `output[i] = Σ weights[k] * rows[k][i]`: one output row of a vertical convolution.
    static func weightedSum(rows: UnsafeBufferPointer<UnsafePointer<Float>>, weights: UnsafeBufferPointer<Float>,
                            output: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + lanes <= count {
            var sum = Vector(repeating: 0)
            for k in 0..<weights.count { sum.addProduct(Vector(repeating: weights[k]), load(rows[k] + i)) }
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
    static func convolve(_ input: UnsafePointer<Float>, step: Int, weights: UnsafeBufferPointer<Float>,
                         output: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + lanes <= count {
            var sum = Vector(repeating: 0)
            for k in 0..<weights.count { sum.addProduct(Vector(repeating: weights[k]), load(input + i + k * step)) }
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
