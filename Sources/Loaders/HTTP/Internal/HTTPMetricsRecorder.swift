import Foundation
import Metrics
import WebImageCore

/// The HTTP loader's metrics (names and dimensions in `HTTPLoaderMetrics`). Metric objects are made at
/// each recording, never kept: one made before the application bootstraps its backend would stay a
/// no-op for good.
enum HTTPMetricsRecorder {
    /// A transfer ended: its final status (nil when no response came), how it ended, and its libcurl
    /// measurements when it ran.
    static func recordFinished(status: Int?, result: String, metrics: HTTPTransferMetrics?) {
        Counter(label: HTTPLoaderMetrics.requests, dimensions: [("status", statusClass(status)), ("result", result)])
            .increment()
        guard let metrics else { return }
        if metrics.bytesReceived > 0 {
            Counter(label: HTTPLoaderMetrics.responseBytes).increment(by: Int(clamping: metrics.bytesReceived))
        }
        if metrics.firstByte > .zero {
            Metrics.Timer(label: HTTPLoaderMetrics.timeToFirstByte)
                .recordNanoseconds(metrics.firstByte.wholeNanoseconds)
        }
    }

    static func recordRetry(reason: String) {
        Counter(label: HTTPLoaderMetrics.retries, dimensions: [("reason", reason)]).increment()
    }

    /// A pooled connection was refused before a request went on it (`reason`: ``ConnectionRegistry/Refusal``).
    static func recordStaleConnection(reason: String) {
        Counter(label: HTTPLoaderMetrics.staleConnections, dimensions: [("reason", reason)]).increment()
    }

    /// Transfers that took (positive) or gave back (negative) a running slot.
    static func activeTransfersChanged(by delta: Int) {
        guard delta != 0 else { return }
        Meter(label: HTTPLoaderMetrics.activeTransfers).increment(by: Double(delta))
    }

    /// Requests that entered (positive) or left (negative) the waiting queue.
    static func queuedRequestsChanged(by delta: Int) {
        guard delta != 0 else { return }
        Meter(label: HTTPLoaderMetrics.queuedRequests).increment(by: Double(delta))
    }

    /// `2xx` … `5xx`, or `none`.
    static func statusClass(_ status: Int?) -> String {
        guard let status, (100..<600).contains(status) else { return "none" }
        return "\(status / 100)xx"
    }

    /// The `reason` dimension of a retry after `error`.
    static func retryReason(_ error: ImageError) -> String {
        switch error {
        case .timeout: "timeout"
        case .loadingFailed: "network"
        case .invalidStatusCode: "status"
        default: "other"
        }
    }
}
