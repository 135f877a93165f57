import Metrics
import Tracing

/// Whether the application has bootstrapped a tracer or a metrics backend. Without one, the load flow
/// makes no spans and no metric objects at all: swift-distributed-tracing's no-op path still binds a task
/// local per span and swift-metrics' still allocates a handle per recording, which together doubled the
/// cost of a load (cache-bench's manager rows).
enum Telemetry {
    /// True once a tracer other than the no-op one is bootstrapped. Read once per load that leaves the
    /// memory cache.
    static var isTracing: Bool {
        // Nothing bootstrapped is answered with one concrete cast (about 350 instructions with the
        // lookup); finding a tracer in an instrument takes protocol conformance checks (about 2,400).
        if InstrumentationSystem.instrument is NoOpInstrument { return false }
        return !(InstrumentationSystem.tracer is NoOpTracer)
    }

    /// True once a metrics backend other than the no-op one is bootstrapped.
    static var isMeasuring: Bool { !(MetricsSystem.factory is NOOPMetricsHandler) }
}

/// Runs `body` in a span named `name` when `tracing`, else with a no-op span and no span machinery.
func traced<T>(
    _ name: String, tracing: Bool, ofKind kind: SpanKind = .internal,
    _ body: (any Span) async -> T
) async -> T {
    guard tracing else { return await body(NoOpTracer.NoOpSpan(context: .topLevel)) }
    return await withSpan(name, ofKind: kind) { span in await body(span) }
}

/// The synchronous twin of ``traced(_:tracing:ofKind:_:)-async``.
func traced<T>(_ name: String, tracing: Bool, ofKind kind: SpanKind = .internal, _ body: (any Span) -> T) -> T {
    guard tracing else { return body(NoOpTracer.NoOpSpan(context: .topLevel)) }
    return withSpan(name, ofKind: kind) { span in body(span) }
}
