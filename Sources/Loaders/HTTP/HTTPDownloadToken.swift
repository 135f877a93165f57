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
        var completing = false
        var metrics: HTTPTransferMetrics?
    }

    /// Guards the race between cancel and completion (exactly one of them wins), and the metrics.
    private let state = Locked(State())

    init(transferID: UInt64, subscriberID: UInt64, scheduler: TransferScheduler) {
        self.transferID = transferID
        self.subscriberID = subscriberID
        self.scheduler = scheduler
    }

    /// Stops this caller's request. If it had not completed yet, its completion is never called;
    /// if it had, nothing happens.
    public func cancel() {
        let won = state.withLock { state in
            guard !state.cancelled, !state.completing else { return false }
            state.cancelled = true
            return true
        }
        // Leave the transfer (which stops when no caller is left); a completion racing with this
        // call has already lost at the claim below.
        if won { _ = scheduler.cancel(self) }
    }

    /// Whether ``cancel()`` stopped the request before it completed.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The finished transfer's metrics; set before the completion is called, nil until then (and when
    /// no request was sent).
    public var metrics: HTTPTransferMetrics? { state.withLock { $0.metrics } }

    /// Claims the right to call the completion, recording `metrics` first; false when cancel won.
    func claimCompletion(metrics: HTTPTransferMetrics?) -> Bool {
        state.withLock { state in
            guard !state.cancelled, !state.completing else { return false }
            state.completing = true
            state.metrics = metrics
            return true
        }
    }
}
