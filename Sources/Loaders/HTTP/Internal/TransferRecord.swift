/// The scheduler's entry for one transfer, from enqueue until its callers are answered.
struct TransferRecord: Sendable {
    /// Where a transfer is in its life.
    enum Phase: Sendable {
        /// In the queue, waiting for a slot.
        case queued
        /// Its easy handle is in the multi handle.
        case running
        /// Failed, waiting to be queued again by the retry policy.
        case waitingForRetry
        /// Running but every caller left; the event thread will remove its easy handle.
        case cancelling
    }

    let id: UInt64
    let request: PreparedRequest
    var subscribers: [Subscriber]
    var phase = Phase.queued
    var priority: TransferPriority
    /// The queue entry that is current; older entries for this transfer (before a priority raise) are stale.
    var queueTicket: UInt64 = 0
    /// Attempts started so far.
    var attempts = 0
    /// Set when the first caller wanting partial images joins.
    var partialImageSource: PartialImageSource?

    /// Whether any caller has a response modifier, which may accept a status or type we would reject;
    /// then the body is always read.
    var hasResponseModifier: Bool { subscribers.contains { $0.responseModifier != nil } }
}
