import CCurl
import Foundation
import WebImageCore

/// The loader's one event thread: drives every transfer through one libcurl multi handle.
///
/// Each turn it picks up work from the scheduler (starts, cancels), lets libcurl move bytes, answers
/// finished transfers, and then sleeps in `curl_multi_poll` until a socket is ready, a libcurl timer
/// fires, a retry falls due, or a caller's `curl_multi_wakeup` says there is new work. No busy loop, no
/// polling sleep. Created on, and never leaves, its thread.
final class EventLoop {
    private let scheduler: TransferScheduler
    private let configuration: HTTPLoaderConfiguration
    private let validator: ResponseValidator
    private let multi: UnsafeMutableRawPointer
    /// DNS and connection caches shared by every transfer without cookies. Only this thread touches
    /// the share handles, so they need no lock callbacks.
    private let share: UnsafeMutableRawPointer
    /// The same, plus the cookie jar, for `.handleCookies` transfers (sharing cookies through a share
    /// handle turns the cookie engine on, so the two kinds cannot use one share).
    private let cookieShare: UnsafeMutableRawPointer
    private let handles: EasyHandlePool
    private var transfers: [UInt64: TransferIO] = [:]
    private var idsByHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    /// Transfers waiting out a retry delay, with when (`DispatchTime` nanoseconds) they may run again.
    private var retries: [(id: UInt64, due: UInt64)] = []

    /// How long to sleep when nothing at all is happening; a wakeup ends it early.
    private static let idleWaitMilliseconds: Int32 = 60_000

    init(scheduler: TransferScheduler, configuration: HTTPLoaderConfiguration) {
        self.scheduler = scheduler
        self.configuration = configuration
        self.validator = ResponseValidator(configuration: configuration)
        multi = scheduler.multi.raw
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // Keep enough idle connections around for every running transfer to reuse one.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, configuration.maxConcurrentDownloads * 2))
        handles = EasyHandlePool(limit: max(16, configuration.maxConcurrentDownloads * 2))
        share = Self.makeShare(cookies: false)
        cookieShare = Self.makeShare(cookies: true)
    }

    private static func makeShare(cookies: Bool) -> UnsafeMutableRawPointer {
        guard let share = curl_share_init() else { fatalError("curl_share_init failed (out of memory)") }
        _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_CONNECT.rawValue))
        if cookies { _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) }
        return share
    }

    func run() {
        var stillRunning: Int32 = 0
        while true {
            let work = scheduler.takeWork()
            if work.isShutDown { break }
            for id in work.cancels { stop(id) }
            for start in work.starts { begin(start.id, start.request, attempt: start.attempt) }
            curl_multi_perform(multi, &stillRunning)
            var progressed = drainFinished()
            progressed = requeueDueRetries() || progressed
            // A finished transfer may have freed a slot for a queued one: take work again at once.
            if progressed || !scheduler.prepareToSleep() { continue }
            curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
            scheduler.didWake()
        }
        tearDown()
    }

    private func begin(_ id: UInt64, _ request: PreparedRequest, attempt: Int) {
        guard let io = TransferIO(id: id, request: request, attempt: attempt, scheduler: scheduler,
                                  validator: validator, handles: handles, share: request.handlesCookies ? cookieShare : share) else {
            answer(id, url: request.url, outcome: .failure(.network(code: Int(CURLE_OUT_OF_MEMORY.rawValue),
                                                                    message: "curl_easy_init failed")), metrics: nil)
            return
        }
        transfers[id] = io
        idsByHandle[io.easy] = id
        curl_multi_add_handle(multi, io.easy)
        scheduler.events.emit(.started(transferID: id, url: request.url))
    }

    /// Removes a transfer whose callers all left.
    private func stop(_ id: UInt64) {
        guard let io = transfers[id] else { return }
        detach(io)
        // The bytes so far still save a later load of the same request from fetching them again.
        keepResumableData(of: io)
        _ = scheduler.finish(id)
        scheduler.events.emit(.finished(transferID: id, url: io.request.url, error: .cancelled, metrics: nil))
    }

    private func detach(_ io: TransferIO) {
        curl_multi_remove_handle(multi, io.easy)
        transfers.removeValue(forKey: io.id)
        idsByHandle.removeValue(forKey: io.easy)
    }

    /// Answers every transfer libcurl reports done. True when there was one.
    private func drainFinished() -> Bool {
        var any = false
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let id = idsByHandle[easy], let io = transfers[id] else { continue }
            let code = message.pointee.data.result
            any = true
            finish(io, code: code)
        }
        return any
    }

    private func finish(_ io: TransferIO, code: CURLcode) {
        let metrics = io.metrics()
        var outcome = io.outcome(code)
        if case .success(let response) = outcome,
           let error = validator.rejection(of: response, sentValidators: io.request.sentValidators),
           !scheduler.hasResponseModifier(io.id) {
            outcome = .failure(error)
        }
        detach(io)
        if metrics.httpVersion == "2" || metrics.httpVersion == "3" { scheduler.markMultiplexed(io.request.hostKey) }
        if case .failure(let error) = outcome {
            if case .timeout = error { keepResumableData(of: io) }
            if case .network = error { keepResumableData(of: io) }
            if io.rangeRefused, scheduler.parkForRetry(io.id) {
                // The kept bytes could not be resumed (and are gone): start over at once, whatever the
                // policy says, since the server did answer.
                retries.append((io.id, DispatchTime.now().uptimeNanoseconds))
                return
            }
            if shouldConsiderRetry(error) {
                let decision = configuration.retryPolicy.decision(for: HTTPRetryContext(
                    url: io.request.url, method: io.request.method, error: error, attempt: io.attempt,
                    statusCode: io.response?.statusCode, responseHeaders: io.response?.headers ?? [:]))
                if case .retry(let delay) = decision, scheduler.parkForRetry(io.id) {
                    let due = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, delay) * 1_000_000_000)
                    retries.append((io.id, due))
                    return
                }
            }
        }
        let body = io.body.take()
        answer(io.id, url: io.request.url, outcome: outcome.map { ($0, body) }, metrics: metrics,
               sentValidators: io.request.sentValidators)
    }

    /// Cancellation and client errors other than 408 and 429 are final whatever the retry policy says
    /// (the same request would get the same answer), and so are refusals and "not modified".
    private func shouldConsiderRetry(_ error: ImageError) -> Bool {
        switch error {
        case .cancelled, .cacheNotModified, .requestRefused, .invalidURL: return false
        case .invalidStatusCode(let code): return !(400..<500).contains(code) || code == 408 || code == 429
        default: return true
        }
    }

    /// Keeps the body of a transfer that ended early, when it can be resumed.
    private func keepResumableData(of io: TransferIO) {
        guard scheduler.resumableData.capacity > 0, let resumable = io.resumableData() else { return }
        scheduler.resumableData.store(resumable, for: io.request.key)
    }

    private func answer(_ id: UInt64, url: URL, outcome: Result<(ImageResponse, Data), ImageError>,
                        metrics: HTTPTransferMetrics?, sentValidators: Bool = false) {
        let subscribers = scheduler.finish(id)
        var eventError: ImageError? = nil
        if case .failure(let error) = outcome { eventError = error }
        scheduler.events.emit(.finished(transferID: id, url: url, error: eventError, metrics: metrics))
        for subscriber in subscribers where subscriber.token.claimCompletion(metrics: metrics) {
            switch outcome {
            case .failure(let error):
                subscriber.completion(.failure(error))
            case .success(let (response, body)):
                subscriber.completion(validator.result(response: response, body: body, for: subscriber,
                                                       sentValidators: sentValidators))
            }
        }
    }

    /// Queues again the retries whose delay passed. True when there was one.
    private func requeueDueRetries() -> Bool {
        guard !retries.isEmpty else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = retries.filter { $0.due <= now }
        guard !due.isEmpty else { return false }
        retries.removeAll { $0.due <= now }
        for retry in due { scheduler.requeue(retry.id) }
        return true
    }

    private func pollTimeout() -> Int32 {
        // curl_multi_poll shortens this itself to libcurl's next timer; we only add the retry timers.
        guard let next = retries.map(\.due).min() else { return Self.idleWaitMilliseconds }
        let now = DispatchTime.now().uptimeNanoseconds
        let milliseconds = next > now ? (next - now + 999_999) / 1_000_000 : 0
        return Int32(min(UInt64(Self.idleWaitMilliseconds), milliseconds))
    }

    /// The loader is gone: stop every transfer, answer every caller with `.cancelled`, free libcurl.
    private func tearDown() {
        for io in Array(transfers.values) { detach(io) }
        for entry in scheduler.drainAll() {
            scheduler.events.emit(.finished(transferID: entry.id, url: entry.url, error: .cancelled, metrics: nil))
            for subscriber in entry.subscribers where subscriber.token.claimCompletion(metrics: nil) {
                subscriber.completion(.failure(.cancelled))
            }
        }
        scheduler.events.finishAll()
        handles.drain()
        curl_share_cleanup(share)
        curl_share_cleanup(cookieShare)
        scheduler.closeMulti()
        curl_multi_cleanup(multi)
    }
}
