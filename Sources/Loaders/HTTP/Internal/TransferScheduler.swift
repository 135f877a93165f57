internal import CCurl
import Foundation
import Synchronization
import WebImageCore

/// The loader's bookkeeping, shared by callers (enqueue, cancel) and the event thread (start, finish):
/// the queue, the coalescing index, running counts per host, and every transfer's callers.
///
/// Everything is behind one lock; every operation under it is short and never calls out to user code.
final class TransferScheduler: Sendable {
    /// Work the event thread picks up on each turn.
    struct Work {
        var starts: [(id: UInt64, request: PreparedRequest, attempt: Int)] = []
        var cancels: [UInt64] = []
        /// Target checks finished off the event thread (pinned transfers), by transfer.
        var resolutions: [(id: UInt64, result: Result<String, ImageError>)] = []
        var isShutDown = false
    }

    private struct State {
        var records: [UInt64: TransferRecord] = [:]
        /// Transfers that still accept callers (not cancelling, not finished), by request identity.
        var keyIndex: [TransferKey: UInt64] = [:]
        var queue = TransferQueue()
        var queuedCount = 0
        var toCancel: [UInt64] = []
        var resolutions: [(id: UInt64, result: Result<String, ImageError>)] = []
        var running = 0
        var runningPerHost: [String: Int] = [:]
        var multiplexedHosts: Set<String> = []
        var maxConcurrent: Int
        var order: HTTPLoaderConfiguration.ExecutionOrder
        var nextID: UInt64 = 1
        var nextTicket: UInt64 = 1
        /// Work arrived (or limits changed) since the event thread last took work.
        var hasNewWork = false
        /// The event thread is in, or about to enter, `curl_multi_poll`: only then does new work need a
        /// `curl_multi_wakeup` (a syscall); an awake event thread takes work before it sleeps again.
        var isEventThreadAsleep = false
        /// A wakeup was sent since the event thread went to sleep: one is enough.
        var wakeupSent = false
        var isShutDown = false
        /// Why every request is refused when the event thread never started; nil otherwise.
        var startFailure: ImageError?
        var multiClosed = false
    }

    /// Guards all the bookkeeping above.
    private let state: Locked<State>
    let multi: MultiHandle
    private let maxQueued: Int
    private let maxPerHost: Int
    private let maxPerMultiplexedHost: Int
    /// Where events go, including those of transfers that end without the event thread (cancelled
    /// while queued).
    let events: EventBroadcaster
    /// Bodies of interrupted transfers, for the next attempt at the same request to resume.
    let resumableData: ResumableDataStore

    init(configuration: HTTPLoaderConfiguration, events: EventBroadcaster) {
        self.events = events
        resumableData = ResumableDataStore(capacity: configuration.resumableDataCapacity)
        precondition(CurlGlobal.isInitialized, "curl_global_init failed")
        guard let raw = curl_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
        multi = MultiHandle(raw: raw)
        maxQueued = configuration.maxQueuedRequests
        maxPerHost = max(1, configuration.maxConnectionsPerHost)
        maxPerMultiplexedHost = max(1, configuration.maxStreamsPerMultiplexedHost)
        state = Locked(
            State(maxConcurrent: max(1, configuration.maxConcurrentDownloads), order: configuration.executionOrder))
    }

    // MARK: Callers

    /// Adds a caller to the transfer for `request`, creating and queueing one when none is running.
    func enqueue(
        _ request: PreparedRequest, priority: TransferPriority, partialImages: PartialImageSource?,
        makeSubscriber: (HTTPDownloadToken) -> Subscriber
    ) -> Result<HTTPDownloadToken, ImageError> {
        let key = request.key
        let hostKey = request.hostKey
        var created = false
        defer { if created { HTTPMetricsRecorder.queuedRequestsChanged(by: 1) } }
        return state.withLock { state in
            guard !state.isShutDown else { return .failure(state.startFailure ?? .cancelled) }
            let subscriberID = state.nextID
            state.nextID += 1
            if let id = state.keyIndex[key], var record = state.records[id] {
                let token = HTTPDownloadToken(transferID: id, subscriberID: subscriberID, scheduler: self)
                record.subscribers.append(makeSubscriber(token))
                if record.partialImageSource == nil { record.partialImageSource = partialImages }
                if priority > record.priority && record.phase == .queued {
                    // Raise it: a fresh entry in the higher bucket; the old one goes stale.
                    record.priority = priority
                    record.queueTicket = state.nextTicket
                    state.queue.append(
                        .init(transferID: id, ticket: state.nextTicket, host: hostKey), priority: priority)
                    state.nextTicket += 1
                    wake(&state)
                }
                state.records[id] = record
                return .success(token)
            }
            guard state.queuedCount < maxQueued else {
                return .failure(.requestRefused(reason: "the download queue is full (\(maxQueued) waiting)"))
            }
            let id = state.nextID
            state.nextID += 1
            let token = HTTPDownloadToken(transferID: id, subscriberID: subscriberID, scheduler: self)
            var record = TransferRecord(
                id: id, request: request, subscribers: [makeSubscriber(token)], priority: priority)
            record.partialImageSource = partialImages
            record.queueTicket = state.nextTicket
            state.queue.append(.init(transferID: id, ticket: state.nextTicket, host: hostKey), priority: priority)
            state.nextTicket += 1
            state.queuedCount += 1
            state.records[id] = record
            state.keyIndex[key] = id
            created = true
            wake(&state)
            return .success(token)
        }
    }

    /// Removes `token`'s caller; true when it was still attached. When it was the last caller, the
    /// transfer stops (at once when queued, through the event thread when running).
    func cancel(_ token: HTTPDownloadToken) -> Bool {
        var leftQueue = false
        defer { if leftQueue { HTTPMetricsRecorder.queuedRequestsChanged(by: -1) } }
        let outcome: (removed: Bool, stoppedURL: URL?) = state.withLock { state in
            guard var record = state.records[token.transferID],
                let index = record.subscribers.firstIndex(where: { $0.token.subscriberID == token.subscriberID })
            else { return (false, nil) }
            record.subscribers.remove(at: index)
            guard record.subscribers.isEmpty else {
                state.records[record.id] = record
                return (true, nil)
            }
            if state.keyIndex[record.request.key] == record.id {
                state.keyIndex.removeValue(forKey: record.request.key)
            }
            switch record.phase {
            case .queued:
                state.queuedCount -= 1
                leftQueue = true
                state.records.removeValue(forKey: record.id)
                return (true, record.request.url)
            case .waitingForRetry:
                state.records.removeValue(forKey: record.id)
                return (true, record.request.url)
            case .running:
                record.phase = .cancelling
                state.records[record.id] = record
                state.toCancel.append(record.id)
                wake(&state)
                return (true, nil)
            case .cancelling:
                state.records[record.id] = record
                return (true, nil)
            }
        }
        if let url = outcome.stoppedURL {
            HTTPMetricsRecorder.recordFinished(status: nil, result: "cancelled", metrics: nil)
            events.emit(.finished(transferID: token.transferID, url: url, error: .cancelled, metrics: nil))
        }
        return outcome.removed
    }

    /// Transfers queued, running, waiting to retry, or being torn down.
    var liveTransferCount: Int { state.withLock { $0.records.count } }

    var maxConcurrentDownloads: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { state in
                state.maxConcurrent = max(1, newValue)
                wake(&state)
            }
        }
    }

    var executionOrder: HTTPLoaderConfiguration.ExecutionOrder {
        get { state.withLock { $0.order } }
        set { state.withLock { $0.order = newValue } }
    }

    /// Stops accepting requests and asks the event thread to end every transfer.
    func shutdown() {
        state.withLock { state in
            state.isShutDown = true
            wake(&state)
        }
    }

    /// The event thread could not be started: refuses every request with `error` from now on.
    func refuseAll(_ error: ImageError) {
        state.withLock { state in
            state.isShutDown = true
            state.startFailure = error
        }
    }

    private func wake(_ state: inout State) {
        state.hasNewWork = true
        guard state.isEventThreadAsleep, !state.wakeupSent, !state.multiClosed else { return }
        state.wakeupSent = true
        curl_multi_wakeup(multi.raw)
    }

    // MARK: Event thread

    /// Transfers to start (up to the concurrency and per-host limits) and to cancel.
    func takeWork() -> Work {
        let work = state.withLock { state in
            state.hasNewWork = false
            var work = Work(cancels: state.toCancel, resolutions: state.resolutions, isShutDown: state.isShutDown)
            state.toCancel.removeAll()
            state.resolutions.removeAll()
            guard !state.isShutDown else { return work }
            var queue = state.queue
            state.queue = TransferQueue()
            while state.running < state.maxConcurrent,
                let entry = queue.take(
                    order: state.order,
                    isLive: { entry in
                        guard let record = state.records[entry.transferID] else { return false }
                        return record.phase == .queued && record.queueTicket == entry.ticket
                    },
                    canStart: { host in
                        let limit = state.multiplexedHosts.contains(host) ? maxPerMultiplexedHost : maxPerHost
                        return state.runningPerHost[host, default: 0] < limit
                    })
            {
                var record = state.records[entry.transferID]!
                record.phase = .running
                record.attempts += 1
                state.records[record.id] = record
                state.queuedCount -= 1
                state.running += 1
                state.runningPerHost[record.request.hostKey, default: 0] += 1
                work.starts.append((record.id, record.request, record.attempts))
            }
            state.queue = queue
            return work
        }
        HTTPMetricsRecorder.queuedRequestsChanged(by: -work.starts.count)
        HTTPMetricsRecorder.activeTransfersChanged(by: work.starts.count)
        return work
    }

    /// Hands the event thread the outcome of a target check made off it, and wakes it.
    func deliverResolution(_ id: UInt64, _ result: Result<String, ImageError>) {
        state.withLock { state in
            state.resolutions.append((id, result))
            wake(&state)
        }
    }

    /// Called by the event thread before `curl_multi_poll`: false when work arrived since it last took
    /// work (so it must not sleep); otherwise callers from now on wake it.
    func prepareToSleep() -> Bool {
        state.withLock { state in
            guard !state.hasNewWork else { return false }
            state.isEventThreadAsleep = true
            state.wakeupSent = false
            return true
        }
    }

    /// Called by the event thread when `curl_multi_poll` returns.
    func didWake() {
        state.withLock { $0.isEventThreadAsleep = false }
    }

    /// The callers due a progress report now (throttled per caller), and the partial-image source when
    /// one of them wants partial images.
    func progressTargets(
        _ id: UInt64, now: UInt64
    ) -> (handlers: [(LoadProgressHandler, Bool)], partial: PartialImageSource?) {
        state.withLock { state in
            guard var record = state.records[id] else { return ([], nil) }
            var due: [(LoadProgressHandler, Bool)] = []
            for index in record.subscribers.indices {
                guard let handler = record.subscribers[index].progress else { continue }
                let subscriber = record.subscribers[index]
                if subscriber.lastProgress != 0 && now &- subscriber.lastProgress < subscriber.progressInterval {
                    continue
                }
                record.subscribers[index].lastProgress = now
                due.append((handler, subscriber.wantsPartialImages))
            }
            if !due.isEmpty { state.records[id] = record }
            return (due, record.partialImageSource)
        }
    }

    /// Whether some caller of `id` has a response modifier (so the body must be read whatever the status).
    func hasResponseModifier(_ id: UInt64) -> Bool {
        state.withLock { $0.records[id]?.hasResponseModifier ?? false }
    }

    /// Records that `hostKey` multiplexes (HTTP/2), so it gets the larger per-host limit.
    func markMultiplexed(_ hostKey: String) {
        state.withLock { _ = $0.multiplexedHosts.insert(hostKey) }
    }

    /// Ends transfer `id` (its easy handle is gone) and hands back its callers to answer.
    func finish(_ id: UInt64) -> [Subscriber] {
        var released = false
        defer { if released { HTTPMetricsRecorder.activeTransfersChanged(by: -1) } }
        return state.withLock { state in
            guard let record = state.records.removeValue(forKey: id) else { return [] }
            if state.keyIndex[record.request.key] == id { state.keyIndex.removeValue(forKey: record.request.key) }
            if record.phase == .running || record.phase == .cancelling {
                releaseSlot(&state, record.request.hostKey)
                released = true
            }
            return record.subscribers
        }
    }

    /// Parks a failed running transfer for a retry; false when no caller is left to retry for.
    func parkForRetry(_ id: UInt64) -> Bool {
        let parked = state.withLock { state in
            guard var record = state.records[id], record.phase == .running, !record.subscribers.isEmpty else {
                return false
            }
            record.phase = .waitingForRetry
            state.records[id] = record
            releaseSlot(&state, record.request.hostKey)
            return true
        }
        if parked { HTTPMetricsRecorder.activeTransfersChanged(by: -1) }
        return parked
    }

    /// Puts a transfer whose retry delay passed back at the head of the queue.
    func requeue(_ id: UInt64) {
        var requeued = false
        defer { if requeued { HTTPMetricsRecorder.queuedRequestsChanged(by: 1) } }
        state.withLock { state in
            guard var record = state.records[id], record.phase == .waitingForRetry else { return }
            requeued = true
            record.phase = .queued
            record.queueTicket = state.nextTicket
            state.queue.pushNext(
                .init(transferID: id, ticket: state.nextTicket, host: record.request.hostKey),
                priority: record.priority, order: state.order)
            state.nextTicket += 1
            state.queuedCount += 1
            state.records[id] = record
        }
    }

    /// Empties everything at shutdown, handing back every caller still waiting.
    func drainAll() -> [(id: UInt64, url: URL, subscribers: [Subscriber])] {
        var (queued, running) = (0, 0)
        defer {
            HTTPMetricsRecorder.queuedRequestsChanged(by: -queued)
            HTTPMetricsRecorder.activeTransfersChanged(by: -running)
        }
        return state.withLock { state in
            (queued, running) = (state.queuedCount, state.running)
            let all = state.records.values.map { ($0.id, $0.request.url, $0.subscribers) }
            state.records.removeAll()
            state.keyIndex.removeAll()
            state.queue = TransferQueue()
            state.queuedCount = 0
            state.running = 0
            state.runningPerHost.removeAll()
            return all
        }
    }

    /// Marks the multi handle closed so no caller wakes it again; the event thread then cleans it up.
    func closeMulti() {
        state.withLock { $0.multiClosed = true }
    }

    private func releaseSlot(_ state: inout State, _ host: String) {
        state.running -= 1
        let left = state.runningPerHost[host, default: 1] - 1
        if left <= 0 { state.runningPerHost.removeValue(forKey: host) } else { state.runningPerHost[host] = left }
    }
}
