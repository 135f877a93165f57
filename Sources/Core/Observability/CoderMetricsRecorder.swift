import Metrics

/// The decode and encode timers of the coders managers (made at each recording; see `LoadMetricsRecorder`).
enum CoderMetricsRecorder {
    /// Records a decode; the caller has checked ``Telemetry/isMeasuring`` (once per load in the manager).
    static func recordDecode(format: ImageFormat, succeeded: Bool, since started: ContinuousClock.Instant) {
        Metrics.Timer(
            label: WebImageMetrics.decodeDuration,
            dimensions: [("format", format.identifier), ("result", succeeded ? "success" : "failure")]
        )
        .recordNanoseconds((ContinuousClock.now - started).nanoseconds)
    }

    static func recordEncode(format: ImageFormat, since started: ContinuousClock.Instant) {
        guard Telemetry.isMeasuring else { return }
        Metrics.Timer(label: WebImageMetrics.encodeDuration, dimensions: [("format", format.identifier)])
            .recordNanoseconds((ContinuousClock.now - started).nanoseconds)
    }
}
