import InMemoryTracing
import Metrics
import MetricsTestKit
import Tracing

/// The metrics and tracing backends of the test process, bootstrapped once as an application does.
///
/// Every test target runs in one process and swift-metrics and swift-distributed-tracing accept one
/// bootstrap each, so every suite that checks metrics or spans goes through here. Suites record into the
/// same backends in parallel: each test looks only at what carries its own marks (its own dimensions,
/// trace or label), or at counts that can only grow.
public enum TestBackends {
    /// The process's metrics backend.
    public static let metrics: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()
    /// The process's tracer.
    public static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}
