import Synchronization
import WebImageCore

/// One caller's share of a download (SDWebImage's `SDWebImageDownloadToken`).
///
/// Identical requests share one transfer; each caller holds its own token with its own progress and
/// completion. Cancelling a token removes only that caller; the transfer stops when no caller is left.
public final class HTTPDownloadToken: ImageOperation {
    /// The transfer this caller is attached to; matches ``HTTPDownloadEvent/transferID``.
    public let transferID: UInt64
    let subscriberID: UInt64
    private let scheduler: TransferScheduler

    private struct State {
        var cancelled = false
        var metrics: HTTPTransferMetrics?
    }

    /// Guards whether cancel won, and the metrics set just before the completion runs.
    private let state = Mutex(State())

    init(transferID: UInt64, subscriberID: UInt64, scheduler: TransferScheduler) {
        self.transferID = transferID
        self.subscriberID = subscriberID
        self.scheduler = scheduler
    }

    /// Stops this caller's request. If it had not completed yet, its completion is never called;
    /// if it had, nothing happens.
    public func cancel() {
        if scheduler.cancel(self) {
            state.withLock { $0.cancelled = true }
        }
    }

    /// Whether ``cancel()`` stopped the request before it completed.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The finished transfer's metrics; set before the completion is called, nil until then (and when
    /// no request was sent).
    public var metrics: HTTPTransferMetrics? { state.withLock { $0.metrics } }

    func setMetrics(_ metrics: HTTPTransferMetrics?) { state.withLock { $0.metrics = metrics } }
}
