/// Which engine a resample runs on. Not part of the public API (SPI `ResamplingEngines`): for the benchmark
/// and the tests that hold the fixed-point engine to the Float one.
@_spi(ResamplingEngines)
public enum ResamplingArithmetic: Sendable, Hashable {
    /// What every public entry point uses: the engine measured faster for the resample, both within one
    /// level of each other. Fixed point (``FixedPointResampler``, with ``FixedPointBoxReducer``) for
    /// thumbnails that block-average first, where it took half the Float engine's time (integer block
    /// sums instead of Float ones); the Float engine (``SeparableResampler``) for the rest, where fixed
    /// point took 0.97 to 1.2 times as long for RGB, and longer for RGBA, on x86-64's baseline SSE2
    /// (resample-bench, Benchmarks/README.md).
    case automatic
    /// Fixed point wherever its error bound keeps every output within one level of the Float engine,
    /// Float elsewhere.
    case fixedPoint
    /// The Float engine always: the reference, and the engine before fixed point.
    case float
}
