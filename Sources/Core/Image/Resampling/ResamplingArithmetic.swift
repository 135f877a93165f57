/// Which engine a resample runs on. Not part of the public API (SPI `ResamplingEngines`): for the benchmark
/// and the tests that hold the fixed-point engine to the Float one, and its AVX2 kernels to its Swift ones.
@_spi(ResamplingEngines)
public enum ResamplingArithmetic: Sendable, Hashable {
    /// What every public entry point uses: the engine measured faster for the resample, both within one
    /// level of each other (resample-bench, Benchmarks/README.md). On a CPU with AVX2, fixed point
    /// (``FixedPointResampler`` on its AVX2 kernels) wherever its error bound allows, as it took well
    /// under the Float engine's time there. Without AVX2, fixed point only for thumbnails that
    /// block-average first (``FixedPointBoxReducer``: integer block sums instead of Float ones), and the
    /// Float engine (``SeparableResampler``) for the rest, where fixed point on x86-64's baseline SSE2
    /// took 0.97 to 1.2 times as long for RGB, and longer for RGBA.
    case automatic
    /// Fixed point wherever its error bound keeps every output within one level of the Float engine,
    /// Float elsewhere; on the AVX2 kernels where the CPU has AVX2.
    case fixedPoint
    /// As ``fixedPoint``, always on the portable Swift kernels: what the AVX2 kernels are held to, byte
    /// for byte.
    case portableFixedPoint
    /// The Float engine always: the reference, and the engine before fixed point.
    case float

    /// Whether this CPU runs the fixed-point engine's AVX2 kernels (x86-64 with AVX2).
    public static var hasAVX2Kernels: Bool { FixedPointResampler.hasAVX2 }

    /// Whether a resample runs in fixed point (when its error bound allows) rather than in Float.
    /// `blockAverages`: whether the resample first averages whole blocks (a thumbnail's large downscale).
    func prefersFixedPoint(blockAverages: Bool) -> Bool {
        switch self {
        case .automatic: blockAverages || FixedPointResampler.hasAVX2
        case .fixedPoint, .portableFixedPoint: true
        case .float: false
        }
    }

    /// Whether the fixed-point engine may run its AVX2 kernels (it does where the CPU has them).
    var allowsAVX2: Bool { self != .portableFixedPoint }
}
