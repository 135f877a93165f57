internal import CCurl
import Foundation
import Logging
import WebImageCore

/// The loader's one event thread: drives every transfer through one libcurl multi handle.
///
/// Each turn it picks up work from the scheduler (starts, cancels), lets libcurl move bytes, answers
/// finished transfers, and then sleeps in `curl_multi_poll` until a socket is ready, a libcurl timer
/// fires, a retry falls due, or a caller's `curl_multi_wakeup` says there is new work. No busy loop, no
/// polling sleep. Created on, and never leaves, its thread.
final class CurlMultiLoop {
    private let scheduler: TransferScheduler
    private let configuration: HTTPLoaderConfiguration
    /// The loader's logger, for transfers whose request brought none.
    private let loaderLogger: Logger
    private let validator: ResponseValidator
    private let multi: UnsafeMutableRawPointer
    /// DNS and connection caches shared by every transfer without cookies. Only this thread touches
    /// the share handles, so they need no lock callbacks.
    private let share: UnsafeMutableRawPointer
    /// The same, plus the cookie jar, for `.handleCookies` transfers (sharing cookies through a share
    /// handle turns the cookie engine on, so the two kinds cannot use one share).
    private let cookieShare: UnsafeMutableRawPointer
    private let handles: EasyHandlePool
    /// The sockets of every connection in both shares, for the check before each request. Outlives
    /// them: the teardown's curl_share_cleanup and curl_multi_cleanup close the last ones.
    private let connections = ConnectionRegistry()
    private var transfers: [UInt64: TransferIO] = [:]
    private var idsByHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    /// Transfers waiting out a retry delay, with when (`DispatchTime` nanoseconds) they may run again.
    private var retries: [(id: UInt64, due: UInt64)] = []

    /// One hop of a transfer: the request to send (the original, or a redirect's target).
    private struct Hop {
        let request: PreparedRequest
        let attempt: Int
        /// Redirects followed before this hop.
        let redirects: Int
    }
    /// Whether the SSRF guard checks and pins each target host before connecting: when it is on and
    /// a proxy may carry the connection (so the connected address says nothing about the target).
    private let pinsTargets: Bool
    /// Hops whose target check runs off the event thread, by transfer.
    private var resolving: [UInt64: Hop] = [:]
    /// Response-head deadlines in start order (one timeout for all, so also in due order): transfer,
    /// its attempt's ``TransferIO/serial``, and when (`DispatchTime` nanoseconds) its head must be in.
    private var headDeadlines: [(id: UInt64, serial: UInt64, due: UInt64)] = []
    private var nextSerial: UInt64 = 1
    /// Hosts (``PreparedRequest/connectionKey``) that sent bytes no request asked for, with when (`DispatchTime`
    /// nanoseconds) their connections may be reused again. Until then each transfer to them opens a
    /// connection of its own and closes it after: the check before a request sees bytes already waiting,
    /// but bytes that such a host sends just after the next request went out would be read as its answer,
    /// which only not reusing the connection prevents.
    private var unframedHosts: [String: UInt64] = [:]
    /// How long a host that sent unasked-for bytes goes without connection reuse.
    private static let unframedHostPenalty: Duration = .seconds(600)

    /// How long to sleep when nothing at all is happening; a wakeup ends it early.
    private static let idleWaitMilliseconds: Int32 = 60_000

    init(scheduler: TransferScheduler, configuration: HTTPLoaderConfiguration, logger: Logger) {
        self.scheduler = scheduler
        self.configuration = configuration
        self.loaderLogger = logger
        self.validator = ResponseValidator(configuration: configuration)
        multi = scheduler.multi.raw
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // Keep enough idle connections around for every running transfer to reuse one.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, configuration.maxConcurrentDownloads * 2))
        handles = EasyHandlePool(limit: max(16, configuration.maxConcurrentDownloads * 2))
        pinsTargets = configuration.refusesPrivateAddresses && configuration.proxy != .direct
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
            for start in work.starts {
                begin(start.id, Hop(request: start.request, attempt: start.attempt, redirects: 0))
            }
            for resolution in work.resolutions { resume(resolution.id, resolution.result) }
            curl_multi_perform(multi, &stillRunning)
            var progressed = drainFinished()
            progressed = expireResponseHeads() || progressed
            progressed = requeueDueRetries() || progressed
            // A finished transfer may have freed a slot for a queued one: take work again at once.
            if progressed || !scheduler.prepareToSleep() { continue }
            curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
            scheduler.didWake()
        }
        tearDown()
    }

    /// Starts a hop: at once, or after its target check when targets are pinned.
    private func begin(_ id: UInt64, _ hop: Hop) {
        guard pinsTargets else {
            open(id, hop, pinnedAddress: nil)
            return
        }
        resolving[id] = hop
        let url = hop.request.url
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let (scheduler, exceptions) = (scheduler, AddressPolicy.Exceptions(configuration))
        // getaddrinfo blocks: never on this thread, which drives every other transfer.
        DispatchQueue.global().async {
            scheduler.deliverResolution(
                id, TargetCheck.pinnedAddress(host: url.host ?? "", port: port, except: exceptions))
        }
    }

    /// Continues a hop whose target check finished (unless its callers left meanwhile).
    private func resume(_ id: UInt64, _ result: Result<String, ImageError>) {
        guard let hop = resolving.removeValue(forKey: id) else { return }
        switch result {
        case .success(let address): open(id, hop, pinnedAddress: address)
        case .failure(let error):
            logger(hop.request).debug(
                "target refused by the address guard",
                metadata: [
                    "url": "\(hop.request.url)", "error": "\(error)",
                ])
            answer(id, request: hop.request, status: nil, outcome: .failure(error), metrics: nil)
        }
    }

    /// Sets up and adds the transfer of a hop; `freshConnection` for a hop sent again after the check
    /// before its request refused a pooled connection. Hops to a host that sent unasked-for bytes get a
    /// connection of their own (``unframedHosts``).
    private func open(_ id: UInt64, _ hop: Hop, pinnedAddress: String?, freshConnection: Bool = false) {
        let request = hop.request
        let serial = nextSerial
        nextSerial += 1
        let reuse: TransferIO.ConnectionReuse =
            isUnframed(request.connectionKey) ? .never : freshConnection ? .freshOnly : .pooled
        guard
            let io = TransferIO(
                id: id, request: request, attempt: hop.attempt, serial: serial,
                pinnedAddress: pinnedAddress, redirectsBefore: hop.redirects,
                reuse: reuse, scheduler: scheduler, validator: validator,
                handles: handles, connections: connections,
                share: request.handlesCookies ? cookieShare : share)
        else {
            answer(
                id, request: request, status: nil,
                outcome: .failure(
                    .httpLoader(.network(curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue)), message: "curl_easy_init failed")
                ),
                metrics: nil)
            return
        }
        transfers[id] = io
        idsByHandle[io.easy] = id
        if let limit = configuration.responseHeadTimeout {
            headDeadlines.append((id, serial, DispatchTime.now().uptimeNanoseconds + limit.uptimeNanoseconds))
        }
        curl_multi_add_handle(multi, io.easy)
        if hop.redirects == 0 && !freshConnection {
            logger(request).debug(
                "transfer started",
                metadata: [
                    "url": "\(request.url)", "transfer": "\(id)", "attempt": "\(hop.attempt)",
                ])
            scheduler.events.emit(.started(transferID: id, url: request.url))
        }
    }

    /// Fails the transfers whose response head is late. True when there was one.
    private func expireResponseHeads() -> Bool {
        guard !headDeadlines.isEmpty else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        var any = false
        while let first = headDeadlines.first, first.due <= now {
            headDeadlines.removeFirst()
            guard let io = transfers[first.id], io.serial == first.serial, !io.hasResponseHead else { continue }
            io.markTimedOut()
            finish(io, code: CURLE_OPERATION_TIMEDOUT)
            any = true
        }
        return any
    }

    /// Removes a transfer whose callers all left.
    private func stop(_ id: UInt64) {
        let request: PreparedRequest
        if let io = transfers[id] {
            detach(io)
            // The bytes so far still save a later load of the same request from fetching them again.
            keepResumableData(of: io)
            request = io.request
        } else if let hop = resolving.removeValue(forKey: id) {
            request = hop.request
        } else {
            return
        }
        let url = request.url
        _ = scheduler.finish(id)
        logger(request).debug("transfer cancelled", metadata: ["url": "\(url)", "transfer": "\(id)"])
        HTTPMetricsRecorder.recordFinished(status: nil, result: "cancelled", metrics: nil)
        scheduler.events.emit(.finished(transferID: id, url: url, error: .cancelled, metrics: nil))
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
                let id = idsByHandle[easy], let io = transfers[id]
            else { continue }
            let code = message.pointee.data.result
            any = true
            finish(io, code: code)
        }
        return any
    }

    private func finish(_ io: TransferIO, code: CURLcode) {
        if code == CURLE_ABORTED_BY_CALLBACK, let refusal = io.refusedConnection {
            detach(io)
            resend(io, because: refusal)
            return
        }
        let metrics = io.metrics()
        var outcome = io.outcome(code)
        if case .success = outcome, let target = io.loaderRedirectTarget() {
            detach(io)
            follow(io, to: target, metrics: metrics)
            return
        }
        if case .success(let response) = outcome,
            let error = validator.rejection(of: response, sentValidators: io.request.sentValidators),
            !scheduler.hasResponseModifier(io.id)
        {
            outcome = .failure(error)
        }
        detach(io)
        if metrics.httpVersion == "2" || metrics.httpVersion == "3" { scheduler.markMultiplexed(io.request.hostKey) }
        if case .failure(let error) = outcome {
            if case .timeout = error { keepResumableData(of: io) }
            if case .network = error.httpLoaderFailure { keepResumableData(of: io) }
            if io.rangeRefused, scheduler.parkForRetry(io.id) {
                // The kept bytes could not be resumed (and are gone): start over at once, whatever the
                // policy says, since the server did answer.
                logRetry(io, reason: "range_refused", error: error, delay: .zero)
                retries.append((io.id, DispatchTime.now().uptimeNanoseconds))
                return
            }
            if shouldConsiderRetry(error) {
                let decision = configuration.retryPolicy.decision(
                    for: HTTPRetryContext(
                        url: io.request.url, method: io.request.method, error: error, attempt: io.attempt,
                        statusCode: io.response?.statusCode, responseHeaders: io.response?.headers ?? [:]))
                if case .retry(let delay) = decision, scheduler.parkForRetry(io.id) {
                    logRetry(io, reason: HTTPMetricsRecorder.retryReason(error), error: error, delay: delay)
                    let due = DispatchTime.now().uptimeNanoseconds + delay.uptimeNanoseconds
                    retries.append((io.id, due))
                    return
                }
            }
        }
        if let refused = io.refusedAddress {
            logger(io.request).debug(
                "connection refused by the address guard",
                metadata: [
                    "url": "\(io.request.url)", "address": "\(refused)",
                ])
        }
        let body = io.body.take()
        answer(
            io.id, request: io.request, status: io.response?.statusCode, outcome: outcome.map { ($0, body) },
            metrics: metrics, sentValidators: io.request.sentValidators)
    }

    /// Starts the next hop of a redirect the event loop follows (see ``TransferIO/loaderFollowsRedirects``),
    /// with the checks libcurl makes when it follows redirects itself: the limit, http or https only, and
    /// one timeout for the whole chain; then the configuration's redirect policy, if any.
    private func follow(_ io: TransferIO, to target: URL, metrics: HTTPTransferMetrics) {
        let url = io.request.url
        let redirects = io.redirectsBefore + 1
        guard redirects <= configuration.maxRedirects else {
            logger(io.request).debug(
                "redirect refused",
                metadata: [
                    "url": "\(url)", "target": "\(target)", "reason": "too many redirects",
                ])
            answer(
                io.id, request: io.request, status: io.response?.statusCode,
                outcome: .failure(
                    .httpLoader(
                        .network(curlCode: Int(CURLE_TOO_MANY_REDIRECTS.rawValue)),
                        message: "Maximum (\(configuration.maxRedirects)) redirects followed")),
                metrics: metrics)
            return
        }
        guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil else {
            logger(io.request).debug(
                "redirect refused",
                metadata: [
                    "url": "\(url)", "target": "\(target)", "reason": "scheme",
                ])
            answer(
                io.id, request: io.request, status: io.response?.statusCode,
                outcome: .failure(
                    .requestRefused(
                        reason: "redirect to a scheme other than http or https (\(target.absoluteString))")),
                metrics: metrics)
            return
        }
        if let allowsRedirect = configuration.allowsRedirect, !allowsRedirect(target) {
            logger(io.request).debug(
                "redirect refused",
                metadata: [
                    "url": "\(url)", "target": "\(target)", "reason": "policy",
                ])
            answer(
                io.id, request: io.request, status: io.response?.statusCode,
                outcome: .failure(
                    .requestRefused(
                        reason: "redirect to \(target.absoluteString) refused by the loader's redirect policy")),
                metrics: metrics)
            return
        }
        var next = io.request.redirected(to: target)
        if io.request.timeout > .zero {
            next.deadline = io.request.deadline ?? io.started + .milliseconds(io.request.timeout.wholeMilliseconds)
        }
        if let deadline = next.deadline, deadline <= .now {
            answer(
                io.id, request: io.request, status: io.response?.statusCode, outcome: .failure(.timeout),
                metrics: metrics)
            return
        }
        begin(io.id, Hop(request: next, attempt: io.attempt, redirects: redirects))
    }

    /// Sends a hop again, on a new connection, after the check before its request refused the pooled
    /// connection libcurl picked (see ``ConnectionRegistry``). libcurl has closed that connection and
    /// nothing was sent on it, so this is the same attempt, not a retry; the hop keeps its deadline.
    private func resend(_ io: TransferIO, because refusal: ConnectionRegistry.Refusal) {
        HTTPMetricsRecorder.recordStaleConnection(reason: refusal.rawValue)
        if refusal == .unreadBytes { markUnframed(io.request.connectionKey, request: io.request) }
        logger(io.request).debug(
            "pooled connection refused",
            metadata: [
                "url": "\(io.request.url)", "transfer": "\(io.id)", "reason": "\(refusal.rawValue)",
            ])
        // The bytes this attempt was to resume from go back to the store, for the new one to take.
        keepResumableData(of: io)
        guard io.reuse == .pooled else {
            // Not expected: a transfer on new connections never meets a reused one.
            answer(
                io.id, request: io.request, status: nil,
                outcome: .failure(
                    .httpLoader(
                        .network(curlCode: Int(CURLE_ABORTED_BY_CALLBACK.rawValue)),
                        message: "a new connection was refused (\(refusal.rawValue))")),
                metrics: nil)
            return
        }
        var request = io.request
        if request.timeout > .zero, request.deadline == nil {
            request.deadline = io.started + .milliseconds(request.timeout.wholeMilliseconds)
        }
        open(
            io.id, Hop(request: request, attempt: io.attempt, redirects: io.redirectsBefore),
            pinnedAddress: io.pinnedAddress, freshConnection: true)
    }

    /// Takes connection reuse away from `host` for ``unframedHostPenalty``.
    private func markUnframed(_ host: String, request: PreparedRequest) {
        if unframedHosts[host] == nil {
            logger(request).notice(
                "host sent bytes no request asked for: its connections are not reused for a while",
                metadata: ["host": "\(host)", "seconds": "\(Self.unframedHostPenalty.components.seconds)"])
        }
        unframedHosts[host] =
            DispatchTime.now().uptimeNanoseconds + UInt64(Self.unframedHostPenalty.components.seconds) * 1_000_000_000
    }

    /// Whether `host` is still without connection reuse; forgets it once its time is up.
    private func isUnframed(_ host: String) -> Bool {
        guard let until = unframedHosts[host] else { return false }
        if until > DispatchTime.now().uptimeNanoseconds { return true }
        unframedHosts[host] = nil
        return false
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

    private func answer(
        _ id: UInt64, request: PreparedRequest, status: Int?,
        outcome: Result<(ImageResponse, Data), ImageError>,
        metrics: HTTPTransferMetrics?, sentValidators: Bool = false
    ) {
        let url = request.url
        let subscribers = scheduler.finish(id)
        var eventError: ImageError? = nil
        if case .failure(let error) = outcome { eventError = error }
        logFinished(id, request: request, status: status, error: eventError, metrics: metrics)
        scheduler.events.emit(.finished(transferID: id, url: url, error: eventError, metrics: metrics))
        for subscriber in subscribers where subscriber.token.claimCompletion(metrics: metrics) {
            switch outcome {
            case .failure(let error):
                subscriber.completion(.failure(error))
            case .success(let (response, body)):
                subscriber.completion(
                    validator.result(
                        response: response, body: body, for: subscriber,
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

    // MARK: Logs and metrics

    /// The logger of `request`'s caller, else the configuration's.
    private func logger(_ request: PreparedRequest) -> Logger { request.logger ?? loaderLogger }

    private func logRetry(_ io: TransferIO, reason: String, error: ImageError, delay: Duration) {
        HTTPMetricsRecorder.recordRetry(reason: reason)
        logger(io.request).debug(
            "retrying",
            metadata: [
                "url": "\(io.request.url)", "transfer": "\(io.id)", "attempt": "\(io.attempt)", "reason": "\(reason)",
                "error": "\(error)", "delay_ms": "\(max(0, delay.wholeMilliseconds))",
            ])
    }

    /// One line and the metrics of a transfer's end (after its retries and redirects).
    private func logFinished(
        _ id: UInt64, request: PreparedRequest, status: Int?, error: ImageError?,
        metrics: HTTPTransferMetrics?
    ) {
        let result = error == nil ? "success" : (error == .cancelled ? "cancelled" : "failure")
        HTTPMetricsRecorder.recordFinished(status: status, result: result, metrics: metrics)
        let logger = logger(request)
        guard logger.logLevel <= .debug else { return }
        var metadata: Logger.Metadata = [
            "url": "\(request.url)", "transfer": "\(id)",
            "status": "\(status.map(String.init) ?? "none")",
        ]
        if let metrics {
            metadata["bytes"] = "\(metrics.bytesReceived)"
            metadata["ttfb_ms"] = "\(metrics.firstByte.wholeMilliseconds)"
            metadata["total_ms"] = "\(metrics.total.wholeMilliseconds)"
            metadata["attempts"] = "\(metrics.attempts)"
            metadata["http"] = "\(metrics.httpVersion)"
        }
        if let error {
            metadata["error"] = "\(error)"
            if case .tls(let failure) = error.httpLoaderFailure {
                logger.debug("TLS failure", metadata: ["url": "\(request.url)", "failure": "\(failure)"])
            }
        }
        logger.debug("transfer finished", metadata: metadata)
    }

    private func pollTimeout() -> Int32 {
        // curl_multi_poll shortens this itself to libcurl's next timer; we only add the retry timers
        // and the first response-head deadline.
        let dues = retries.map(\.due) + (headDeadlines.first.map { [$0.due] } ?? [])
        guard let next = dues.min() else { return Self.idleWaitMilliseconds }
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
