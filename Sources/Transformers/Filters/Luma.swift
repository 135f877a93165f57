/// ITU-R BT.601 luma of 8-bit RGB, the weights JPEG, PNG and Pillow's `convert("L")` use for gray.
enum Luma {
    /// 0.299, 0.587 and 0.114 in 16-bit fixed point (they sum to 65536), as Pillow computes it, so gray
    /// pixels match Pillow's exactly.
    static let redWeight = 19595, greenWeight = 38470, blueWeight = 7471
    /// Half of 65536: rounds the fixed-point result to the nearest level.
    static let rounding = 1 << 15

    /// The luma of one pixel, 0...255.
    @inline(__always)
    static func of(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> UInt8 {
        UInt8(
            truncatingIfNeeded: (Int(red) * redWeight + Int(green) * greenWeight + Int(blue) * blueWeight
                + rounding) >> 16)
    }

    /// The luma of Float samples (0...255, not rounded), for arithmetic that goes on afterwards.
    @inline(__always)
    static func of(_ red: Float, _ green: Float, _ blue: Float) -> Float {
        0.299 * red + 0.587 * green + 0.114 * blue
    }
}
