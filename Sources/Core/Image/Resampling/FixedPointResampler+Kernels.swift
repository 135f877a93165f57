// The inner loops of the fixed-point engine, on raw pointers into buffers the engine owns (or the row the
// caller lends for the duration of `consume(row:)`): widening a row to 16 bits, the horizontal pass into a
// ring row, and the vertical pass into output bytes. Products are Int16 × Int16 summed in Int32 lanes.

extension FixedPointResampler {
    // MARK: Widening

    /// Gray bytes to Int16 samples, one per pixel.
    static func widenGray(_ src: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<Int16>, span: Range<Int>) {
        var i = span.lowerBound
        while i + 16 <= span.upperBound {
            let bytes = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(out + i).storeBytes(
                of: SIMD16<Int16>(truncatingIfNeeded: bytes),
                as: SIMD16<Int16>.self)
            i += 16
        }
        while i < span.upperBound {
            out[i] = Int16(src[i])
            i += 1
        }
    }

    /// RGB bytes to four Int16 lanes per pixel (the fourth zero), so RGB shares RGBA's four-lane kernel.
    /// Four pixels per step from a 16-byte load, while those 16 bytes lie within the span (the row may end
    /// there), then one pixel at a time.
    static func widenRGB(_ src: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<Int16>, span: Range<Int>) {
        var x = span.lowerBound
        while (x + 6) <= span.upperBound {
            let bytes = UnsafeRawPointer(src + x * 3).loadUnaligned(as: SIMD16<UInt8>.self)
            let low = SIMD8<Int16>(truncatingIfNeeded: bytes.lowHalf),
                high = SIMD8<Int16>(truncatingIfNeeded: bytes.highHalf)
            let first = SIMD8<Int16>(low[0], low[1], low[2], 0, low[3], low[4], low[5], 0)
            let second = SIMD8<Int16>(low[6], low[7], high[0], 0, high[1], high[2], high[3], 0)
            UnsafeMutableRawPointer(out + x * 4).storeBytes(of: first, as: SIMD8<Int16>.self)
            UnsafeMutableRawPointer(out + x * 4 + 8).storeBytes(of: second, as: SIMD8<Int16>.self)
            x += 4
        }
        while x < span.upperBound {
            let s = src + x * 3
            UnsafeMutableRawPointer(out + x * 4).storeBytes(
                of: SIMD4<Int16>(Int16(s[0]), Int16(s[1]), Int16(s[2]), 0), as: SIMD4<Int16>.self)
            x += 1
        }
    }

    /// RGBA bytes to premultiplied samples: each colour times alpha, alpha times 255 (levels × 255, exact),
    /// less 32512 so that 0...65025 fits Int16. Two pixels per step, in 16-bit lanes.
    static func widenPremultiplying(
        _ src: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<Int16>,
        span: Range<Int>
    ) {
        let centre = SIMD8<UInt16>(repeating: 32_512)
        var x = span.lowerBound
        while x + 2 <= span.upperBound {
            let p = SIMD8<UInt16>(
                truncatingIfNeeded: UnsafeRawPointer(src + x * 4).loadUnaligned(as: SIMD8<UInt8>.self))
            let factors = SIMD8<UInt16>(p[3], p[3], p[3], 255, p[7], p[7], p[7], 255)
            let premultiplied = (p &* factors) &- centre
            UnsafeMutableRawPointer(out + x * 4).storeBytes(
                of: SIMD8<Int16>(truncatingIfNeeded: premultiplied),
                as: SIMD8<Int16>.self)
            x += 2
        }
        if x < span.upperBound {
            let s = src + x * 4
            let a = UInt16(s[3])
            let p = SIMD4<UInt16>(UInt16(s[0]) * a, UInt16(s[1]) * a, UInt16(s[2]) * a, a * 255) &- 32_512
            UnsafeMutableRawPointer(out + x * 4).storeBytes(
                of: SIMD4<Int16>(truncatingIfNeeded: p), as: SIMD4<Int16>.self)
        }
    }

    // MARK: Horizontal pass

    /// One widened gray row filtered into `width` samples: eight taps per step (runs are padded to a
    /// multiple of 8 with zero coefficients, and the widened row has that much slack).
    static func horizontalGray(
        _ src: UnsafePointer<Int16>, coefficients: UnsafePointer<Int16>, first: [Int],
        taps: Int, width: Int, shift: Int32, offset: Int32,
        into out: UnsafeMutablePointer<Int16>
    ) {
        let bias = Int32(1) << (shift - 1)
        first.withUnsafeBufferPointer { first in
            for x in 0..<width {
                var acc = SIMD8<Int32>()
                var p = src + first[x]
                var c = coefficients + x * taps
                for _ in 0..<(taps / 8) {
                    let samples = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int16>.self)
                    let weights = UnsafeRawPointer(c).loadUnaligned(as: SIMD8<Int16>.self)
                    acc &+= SIMD8<Int32>(truncatingIfNeeded: samples) &* SIMD8<Int32>(truncatingIfNeeded: weights)
                    p += 8
                    c += 8
                }
                out[x] = Int16(truncatingIfNeeded: ((acc.wrappedSum() &+ bias) &>> shift) &+ offset)
            }
        }
    }

    /// The weighted sum of `taps` four-lane pixels from `p`: two taps (two pixels, eight lanes) per step,
    /// with `expanded`, the coefficients repeated four times each (eight lanes per pair of taps), so a
    /// step is two loads, a 16-bit multiply (low and high halves) and two 32-bit adds.
    @inline(__always)
    static func fourLaneSum(_ p: UnsafePointer<Int16>, expanded c: UnsafePointer<Int16>, taps: Int) -> SIMD4<Int32> {
        var acc = SIMD8<Int32>()
        var p = p, c = c
        for _ in 0..<(taps / 2) {
            let samples = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int16>.self)
            let weights = UnsafeRawPointer(c).loadUnaligned(as: SIMD8<Int16>.self)
            acc &+= SIMD8<Int32>(truncatingIfNeeded: samples) &* SIMD8<Int32>(truncatingIfNeeded: weights)
            p += 8
            c += 8
        }
        return acc.lowHalf &+ acc.highHalf
    }

    /// `value` rounded to the nearest integer (ties to even) as Int16, for |value| < 2^22: adding 1.5 × 2^23
    /// leaves the rounded integer in the low bits of the Float (SSE2 has no cheaper vector rounding).
    @inline(__always)
    static func roundedToInt16(_ value: SIMD4<Float>) -> SIMD4<Int16> {
        let shifted = value + 12_582_912
        return SIMD4<Int16>(truncatingIfNeeded: unsafeBitCast(shifted, to: SIMD4<Int32>.self))
    }

    /// One widened RGB row (four lanes per pixel; `coefficients` expanded four times) filtered into `width` pixels of three samples. Each
    /// pixel writes four lanes and the next overwrites the fourth; the ring row has slack for the last one.
    static func horizontalRGB(
        _ src: UnsafePointer<Int16>, coefficients: UnsafePointer<Int16>, first: [Int],
        taps: Int, width: Int, shift: Int32, offset: Int32, into out: UnsafeMutablePointer<Int16>
    ) {
        let bias = Int32(1) << (shift - 1)
        first.withUnsafeBufferPointer { first in
            for x in 0..<width {
                let sum = fourLaneSum(src + first[x] * 4, expanded: coefficients + x * taps * 4, taps: taps)
                let value = SIMD4<Int16>(truncatingIfNeeded: ((sum &+ bias) &>> shift) &+ offset)
                UnsafeMutableRawPointer(out + x * 3).storeBytes(of: value, as: SIMD4<Int16>.self)
            }
        }
    }

    /// One widened premultiplied RGBA row (`coefficients` expanded four times) filtered into `width` pixels. A sum over 2^`bits` is
    /// `255 v − 32512` for a level `v`; it is stored as RGB's are, `(v − 128) × 128`, rounded (the scale by
    /// 128/255 is done in Float on these few outputs, so half levels stay exact).
    static func horizontalRGBA(
        _ src: UnsafePointer<Int16>, coefficients: UnsafePointer<Int16>, first: [Int],
        taps: Int, width: Int, bits: Int, into out: UnsafeMutablePointer<Int16>
    ) {
        let scale = 128 / (255 * Float(1 << bits))
        let centre = SIMD4<Float>(repeating: -128 * 128 / 255)
        first.withUnsafeBufferPointer { first in
            for x in 0..<width {
                let sum = fourLaneSum(src + first[x] * 4, expanded: coefficients + x * taps * 4, taps: taps)
                let value = roundedToInt16(SIMD4<Float>(sum) * scale + centre)
                UnsafeMutableRawPointer(out + x * 4).storeBytes(of: value, as: SIMD4<Int16>.self)
            }
        }
    }

    // MARK: Vertical pass

    /// The weighted sum of the ring rows at `slots`, eight samples at `i`.
    @inline(__always)
    static func verticalSum(
        _ ring: UnsafePointer<Int16>, slots: UnsafeBufferPointer<Int>,
        coefficients: UnsafeBufferPointer<Int16>, at i: Int, start: Int32
    ) -> SIMD8<Int32> {
        var acc = SIMD8<Int32>(repeating: start)
        for k in 0..<slots.count {
            let samples = UnsafeRawPointer(ring + slots[k] + i).loadUnaligned(as: SIMD8<Int16>.self)
            acc &+= SIMD8<Int32>(truncatingIfNeeded: samples) &* Int32(coefficients[k])
        }
        return acc
    }

    /// Gray or RGB: `values` samples of the ring rows at `slots` weighed into bytes. Samples between the
    /// passes are `(v − 128) × 128`, so a byte is the sum shifted by `bits + 7`, plus 128, clamped.
    static func verticalToBytes(
        _ ring: UnsafePointer<Int16>, slots: [Int], coefficients: [Int16], values: Int,
        bits: Int32, into out: UnsafeMutablePointer<UInt8>
    ) {
        let shift = bits + 7
        let half = Int32(1) << (shift - 1)
        slots.withUnsafeBufferPointer { slots in
            coefficients.withUnsafeBufferPointer { coefficients in
                var i = 0
                while i < values {
                    let sum = verticalSum(ring, slots: slots, coefficients: coefficients, at: i, start: half)
                    let levels = ((sum &>> shift) &+ 128).clamped(lowerBound: .zero, upperBound: SIMD8(repeating: 255))
                    let bytes = SIMD8<UInt8>(truncatingIfNeeded: levels)
                    if i + 8 <= values {
                        UnsafeMutableRawPointer(out + i).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                    } else {
                        for lane in 0..<(values - i) { out[i + lane] = bytes[lane] }
                    }
                    i += 8
                }
            }
        }
    }

    /// RGBA: `pixels` premultiplied pixels of the ring rows at `slots` weighed, unpremultiplied and written;
    /// returns the pixels whose colour the error bound cannot keep within a level (alpha too low for it),
    /// left for the Float recomputation.
    static func verticalToRGBA(
        _ ring: UnsafePointer<Int16>, slots: [Int], coefficients: [Int16], pixels: Int,
        bits: Int32, errorBound: Float, into out: UnsafeMutablePointer<UInt8>
    ) -> [Int] {
        // Samples between the passes are (v − 128) × 128: a sum over 2^(bits + 7), plus 128, is levels.
        let toLevels = 1 / Float(1 << (bits + 7))
        let centre = SIMD4<Float>(repeating: 128)
        var unsure: [Int] = []
        slots.withUnsafeBufferPointer { slots in
            coefficients.withUnsafeBufferPointer { coefficients in
                var x = 0
                while x < pixels {
                    let sum = verticalSum(ring, slots: slots, coefficients: coefficients, at: x * 4, start: 0)
                    if !writePixel(
                        SIMD4<Float>(sum.lowHalf) * toLevels + centre, errorBound: errorBound,
                        into: out + x * 4)
                    {
                        unsure.append(x)
                    }
                    if x + 1 < pixels,
                        !writePixel(
                            SIMD4<Float>(sum.highHalf) * toLevels + centre,
                            errorBound: errorBound, into: out + (x + 1) * 4)
                    {
                        unsure.append(x + 1)
                    }
                    x += 2
                }
            }
        }
        return unsure
    }

    /// Writes one premultiplied pixel (levels) as straight RGBA bytes, the way the Float engine does, when
    /// every byte is within a level of the Float engine's whatever the error within `errorBound`; false
    /// (nothing written) when some colour byte is not.
    @inline(__always)
    static func writePixel(_ p: SIMD4<Float>, errorBound e: Float, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let alpha = p.w
        if alpha >= 0.5 + e {
            // Each colour's ratio to alpha lies in [low, high] for any error within the bound; the bytes
            // agree within a level when that interval, clamped as the bytes are, is under a level wide.
            let aLow = min(alpha - e, 255), aHigh = min(alpha + e, 255)
            for c in 0..<3 {
                let cLow = p[c] - e, cHigh = p[c] + e
                let low = cLow / (cLow >= 0 ? aHigh : aLow), high = cHigh / (cHigh >= 0 ? aLow : aHigh)
                if (min(max(high, 0), 1) - min(max(low, 0), 1)) * 255 >= 0.99 { return false }
            }
        } else if alpha > 0.5 - e {
            return false  // alpha itself may round to 0 or to 1 in Float
        }
        // Alpha under half a level either way: a colour nobody sees; it is worked out as Float would.
        let clamped = min(255, max(0, alpha))
        if clamped > 0 {
            let unpremultiply = 255 / clamped
            out[0] = byte(p.x * unpremultiply)
            out[1] = byte(p.y * unpremultiply)
            out[2] = byte(p.z * unpremultiply)
        } else {
            out[0] = 0; out[1] = 0; out[2] = 0
        }
        out[3] = byte(clamped)
        return true
    }
}
