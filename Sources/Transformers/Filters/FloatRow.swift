import WebImageCore

/// One row of 8-bit pixels as Float samples and back: the working form of the blur.
///
/// RGBA rows become premultiplied samples on the way in and straight 8-bit pixels on the way out, so that
/// blurring mixes colour in proportion to coverage: a transparent pixel's (invisible) colour never bleeds
/// into its opaque neighbours as a dark fringe.
enum FloatRow {
    /// Scales 8-bit alpha to 0...1 when premultiplying.
    static let alphaScale: Float = 1 / 255

    /// Writes the `width * channels` samples of one row of `layout` pixels to `destination`.
    static func load(
        _ source: UnsafePointer<UInt8>, width: Int, layout: PixelLayout,
        into destination: UnsafeMutablePointer<Float>
    ) {
        if layout.hasAlpha {
            for x in 0..<width {
                let o = x * 4
                let alpha = Float(source[o + 3])
                let scale = alpha * alphaScale
                destination[o] = Float(source[o]) * scale
                destination[o + 1] = Float(source[o + 1]) * scale
                destination[o + 2] = Float(source[o + 2]) * scale
                destination[o + 3] = alpha
            }
        } else {
            convert(source, count: width * layout.bytesPerPixel, into: destination)
        }
    }

    /// Bytes to Float samples (a plain loop the compiler vectorises).
    static func convert(_ source: UnsafePointer<UInt8>, count: Int, into destination: UnsafeMutablePointer<Float>) {
        for i in 0..<count { destination[i] = Float(source[i]) }
    }

    /// Writes one row of samples back as 8-bit `layout` pixels, rounded and clamped to 0...255
    /// (RGBA un-premultiplied; a pixel whose alpha rounds to 0 becomes transparent black).
    static func store(
        _ source: UnsafePointer<Float>, width: Int, layout: PixelLayout,
        into destination: UnsafeMutablePointer<UInt8>
    ) {
        if layout.hasAlpha {
            for x in 0..<width {
                let o = x * 4
                let alpha = source[o + 3]
                let storedAlpha = byte(alpha)
                if storedAlpha == 0 {
                    destination[o] = 0; destination[o + 1] = 0; destination[o + 2] = 0; destination[o + 3] = 0
                    continue
                }
                let unscale = 255 / alpha
                destination[o] = byte(source[o] * unscale)
                destination[o + 1] = byte(source[o + 1] * unscale)
                destination[o + 2] = byte(source[o + 2] * unscale)
                destination[o + 3] = storedAlpha
            }
        } else {
            convert(source, count: width * layout.bytesPerPixel, into: destination)
        }
    }

    /// Float samples to bytes, rounded and clamped (a plain loop the compiler vectorises).
    static func convert(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutablePointer<UInt8>) {
        for i in 0..<count { destination[i] = byte(source[i]) }
    }

    /// 1.5 * 2^23: adding it to a Float in 0...2^22 leaves that value rounded to the nearest integer (ties
    /// to even) in the low bits of the sum's bit pattern. A plain `Int32(value)` checks for overflow on every
    /// sample, which keeps the conversion loops from being vectorised (and the stdlib's SIMD conversions
    /// and `pointwiseMin` are not inlined).
    static let roundingMagic: Float = 12_582_912

    /// `value` rounded to the nearest byte, clamped to 0...255.
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(max(value, 0), 255) + roundingMagic).bitPattern)
    }
}
