import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore

@testable import WebImageHTTPLoader

/// Retries against a real server: Retry-After in both forms, its cap, and what a policy is told.
@Suite(.timeLimit(.minutes(1)))
struct RetryTests {
    let server: LoopbackHTTPServer

    init() throws { server = try FaultServer.make() }

    /// Answers `path` with `failures` in order (status and extra headers), then the image.
    @discardableResult
    private func route(_ path: String, failures: [(Int, [(String, String)])]) -> ScriptedRoute {
        let script = ScriptedRoute(failures: failures)
        server.route(path) { _, connection in try script.answer(connection) }
        return script
    }

    @Test func aServiceUnavailableWithRetryAfterSecondsIsRetriedAfterThatDelay() async throws {
        let busy = route("/busy", failures: [(503, [("Retry-After", "1")])])
        let loader = makeLoader { $0.retryPolicy = HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1)) }
        let result = try await load(loader, server.url("/busy")).get()
        #expect(result.data == Data(FaultServer.image))
        #expect(server.requestCount(for: "/busy") == 2)
        // The jittered backoff alone would be at most 1 ms: the wait is the server's.
        #expect(busy.gap >= 0.9, "retried after \(busy.gap) s")
    }

    @Test func tooManyRequestsWithAnHTTPDateRetryAfterIsRetriedAtThatDate() async throws {
        let recorder = RecordingPolicy(wrapping: HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1)))
        // Four seconds after the request arrived, truncated to the second by the date format: a wait of
        // over three seconds less only the answer's way back to the loader, however late the request
        // itself was sent on a loaded machine.
        let sentDate = Locked<String?>(nil)
        let throttled = ScriptedRoute(failures: [(429, [])]) {
            let date = ResumableOrigin.httpDate(Date().addingTimeInterval(4))
            sentDate.withLock { $0 = date }
            return [("Retry-After", date)]
        }
        server.route("/throttled") { _, connection in try throttled.answer(connection) }
        let loader = makeLoader { $0.retryPolicy = recorder }
        let result = try await load(loader, server.url("/throttled")).get()
        #expect(result.data == Data(FaultServer.image))
        let seen = try #require(recorder.contexts.first)
        #expect(seen.statusCode == 429)
        let date = try #require(sentDate.withLock { $0 })
        #expect(seen.responseHeaders["retry-after"] == date)
        let asked = try #require(seen.retryAfter)
        #expect(asked > .seconds(1) && asked <= .seconds(4), "Retry-After read as \(asked)")
        #expect(
            Duration.seconds(throttled.gap) >= asked - .milliseconds(100),
            "retried after \(throttled.gap) s, asked \(asked)")
    }

    @Test func aRetryAfterBeyondTheCapEndsTheRetries() async {
        route("/down-for-an-hour", failures: [(503, [("Retry-After", "3600")]), (503, [])])
        let loader = makeLoader {
            $0.retryPolicy = HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1), maxRetryAfter: .seconds(5))
        }
        #expect(failure(await load(loader, server.url("/down-for-an-hour"))) == .invalidStatusCode(503))
        #expect(server.requestCount(for: "/down-for-an-hour") == 1)
    }

    @Test func aRetryAfterWithinTheCapIsWaitedFor() async throws {
        route("/brief", failures: [(503, [("Retry-After", "0")])])
        let loader = makeLoader {
            $0.retryPolicy = HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1), maxRetryAfter: .zero)
        }
        _ = try await load(loader, server.url("/brief")).get()
        #expect(server.requestCount(for: "/brief") == 2)
    }

    @Test func aCustomPolicySeesEachAttemptWithItsStatusAndHeaders() async throws {
        route("/flaky", failures: [(503, [("X-Attempt", "1")]), (502, [("X-Attempt", "2")])])
        let recorder = RecordingPolicy(wrapping: AlwaysRetry())
        let loader = makeLoader { $0.retryPolicy = recorder }
        let token = Locked<HTTPDownloadToken?>(nil)
        let result: Result<LoadedImage, ImageError> = await withCheckedContinuation { continuation in
            let started = loader.download(server.url("/flaky")) { continuation.resume(returning: $0) }
            token.withLock { $0 = try? started.get() }
        }
        #expect(try result.get().data == Data(FaultServer.image))
        let seen = recorder.contexts
        #expect(seen.map(\.attempt) == [1, 2])
        #expect(seen.map(\.statusCode) == [503, 502])
        #expect(seen.map { $0.responseHeaders["x-attempt"] } == ["1", "2"])
        #expect(seen.allSatisfy { $0.method == "GET" && $0.url == server.url("/flaky") && $0.retryAfter == nil })
        #expect(seen.map(\.error) == [.invalidStatusCode(503), .invalidStatusCode(502)])
        #expect(token.withLock { $0?.metrics?.attempts } == 3)
    }

    @Test func clientErrorsOtherThan408And429NeverReachThePolicy() async {
        let recorder = RecordingPolicy(wrapping: AlwaysRetry())
        let loader = makeLoader { $0.retryPolicy = recorder }
        #expect(failure(await load(loader, server.url("/not-found"))) == .invalidStatusCode(404))
        #expect(recorder.contexts.isEmpty)
        #expect(server.requestCount(for: "/not-found") == 1)

        route("/timeout-status", failures: [(408, [])])
        _ = await load(loader, server.url("/timeout-status"))
        #expect(recorder.contexts.map(\.statusCode) == [408])
    }

    @Test func aTimeoutIsRetriedByTheBuiltInPolicy() async {
        let loader = makeLoader {
            $0.timeout = .seconds(1)
            $0.retryPolicy = HTTPBackoffRetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
        }
        #expect(failure(await load(loader, server.url("/stall"))) == .timeout)
        #expect(server.requestCount(for: "/stall") == 2)
    }
}

/// The built-in policy's rules, checked on the decision alone.
@Suite struct BackoffPolicyTests {
    let url = URL(string: "http://127.0.0.1/x")!

    private func context(
        _ error: ImageError, attempt: Int = 1, method: String = "GET",
        headers: [String: String] = [:]
    ) -> HTTPRetryContext {
        var status: Int? = nil
        if case .invalidStatusCode(let code) = error { status = code }
        return HTTPRetryContext(
            url: url, method: method, error: error, attempt: attempt, statusCode: status,
            responseHeaders: headers)
    }

    private func retries(_ policy: HTTPBackoffRetryPolicy, _ context: HTTPRetryContext) -> Bool {
        if case .retry = policy.decision(for: context) { return true }
        return false
    }

    @Test func transientFailuresAreRetriedAndLastingOnesAreNot() {
        let policy = HTTPBackoffRetryPolicy()
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(retries(policy, context(.invalidStatusCode(status))), "\(status)")
        }
        for status in [400, 401, 403, 404, 410, 501] {
            #expect(!retries(policy, context(.invalidStatusCode(status))), "\(status)")
        }
        #expect(retries(policy, context(.timeout)))
        for code in [7, 18, 52, 56] {
            #expect(retries(policy, context(.httpLoader(.network(curlCode: code)))), "\(code)")
        }
        for code in [6, 47, 60] { #expect(!retries(policy, context(.httpLoader(.network(curlCode: code)))), "\(code)") }
        #expect(!retries(policy, context(.responseTooLarge(limit: 1))))
        #expect(!retries(policy, context(.badImageData(reason: "x"))))
    }

    @Test func listingAClientErrorDoesNotMakeItRetried() {
        let policy = HTTPBackoffRetryPolicy(retriedStatusCodes: [404, 503])
        #expect(!retries(policy, context(.invalidStatusCode(404))))
        #expect(retries(policy, context(.invalidStatusCode(503))))
        #expect(!retries(policy, context(.invalidStatusCode(500))))
    }

    @Test func onlyIdempotentMethodsAreRetried() {
        let policy = HTTPBackoffRetryPolicy()
        #expect(retries(policy, context(.timeout, method: "HEAD")))
        #expect(!retries(policy, context(.timeout, method: "POST")))
        #expect(!retries(policy, context(.timeout, method: "PATCH")))
    }

    @Test func attemptsStopAtTheMaximum() {
        let policy = HTTPBackoffRetryPolicy(maxAttempts: 3)
        #expect(retries(policy, context(.timeout, attempt: 2)))
        #expect(!retries(policy, context(.timeout, attempt: 3)))
    }

    @Test func backoffDoublesUpToTheCapWithFullJitter() {
        let policy = HTTPBackoffRetryPolicy(maxAttempts: 100, baseDelay: .milliseconds(500), maxDelay: .seconds(3))
        #expect(policy.backoffCeiling(afterAttempt: 1) == .milliseconds(500))
        #expect(policy.backoffCeiling(afterAttempt: 2) == .seconds(1))
        #expect(policy.backoffCeiling(afterAttempt: 3) == .seconds(2))
        #expect(policy.backoffCeiling(afterAttempt: 4) == .seconds(3))
        #expect(policy.backoffCeiling(afterAttempt: 90) == .seconds(3))
        #expect(HTTPBackoffRetryPolicy(baseDelay: .seconds(-1)).backoffCeiling(afterAttempt: 3) == .zero)
        var delays: [Duration] = []
        for _ in 0..<200 {
            guard case .retry(let delay) = policy.decision(for: context(.timeout, attempt: 3)) else {
                Issue.record("expected a retry"); return
            }
            delays.append(delay)
        }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(2) })
        // Full jitter spreads over the whole range, not around the ceiling.
        #expect(delays.contains { $0 < .milliseconds(500) } && delays.contains { $0 > .milliseconds(1500) })
    }

    @Test func retryAfterIsHonouredUpToTheCap() {
        let policy = HTTPBackoffRetryPolicy(maxRetryAfter: .seconds(10))
        #expect(
            policy.decision(for: context(.invalidStatusCode(503), headers: ["retry-after": "7"]))
                == .retry(after: .seconds(7)))
        #expect(policy.decision(for: context(.invalidStatusCode(503), headers: ["retry-after": "11"])) == .stop)
        #expect(
            policy.decision(for: context(.invalidStatusCode(429), headers: ["retry-after": "99999999999999999999999"]))
                == .stop)
    }

    @Test func retryAfterIsReadInEveryHTTPDateForm() throws {
        let now = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(now.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == now)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == now)
        #expect(HTTPDate.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(HTTPDate.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(HTTPDate.retryAfter(" 120 ", now: now) == .seconds(120))
        for garbage in ["", "soon", "-5", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT"] {
            #expect(HTTPDate.retryAfter(garbage, now: now) == nil, "\(garbage)")
        }
    }
}

/// A route that fails as scripted, then serves the image, noting when each request arrived.
final class ScriptedRoute: Sendable {
    private struct State {
        var failures: [(Int, [(String, String)])]
        /// `DispatchTime` nanoseconds of each request.
        var arrivals: [UInt64] = []
    }

    /// Guards the script and the arrival times (handlers run on server threads).
    private let state: Locked<State>
    /// Headers made as each failure is answered (a date relative to the request's arrival), added to
    /// the scripted ones.
    private let headersOnArrival: @Sendable () -> [(String, String)]

    init(
        failures: [(Int, [(String, String)])],
        headersOnArrival: @escaping @Sendable () -> [(String, String)] = { [] }
    ) {
        state = Locked(State(failures: failures))
        self.headersOnArrival = headersOnArrival
    }

    func answer(_ connection: HTTPServerConnection) throws {
        let next: (Int, [(String, String)])? = state.withLock { state in
            state.arrivals.append(DispatchTime.now().uptimeNanoseconds)
            return state.failures.isEmpty ? nil : state.failures.removeFirst()
        }
        if let (status, headers) = next {
            try connection.respond(
                status: status, headers: [("Content-Type", "text/plain")] + headers + headersOnArrival())
        } else {
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
        }
    }

    /// Seconds between the first and second request; -1 before there were two.
    var gap: Double {
        let times = state.withLock { $0.arrivals }
        guard times.count >= 2 else { return -1 }
        return Double(times[1] - times[0]) / 1e9
    }
}

/// Records every context it is asked about, then answers as `inner` does.
final class RecordingPolicy: HTTPRetryPolicy {
    let inner: any HTTPRetryPolicy
    /// Guards the contexts seen so far (asked on the loader's event thread, read by the test).
    private let seen = Locked<[HTTPRetryContext]>([])

    init(wrapping inner: any HTTPRetryPolicy) { self.inner = inner }

    func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
        seen.withLock { $0.append(failure) }
        return inner.decision(for: failure)
    }

    var contexts: [HTTPRetryContext] { seen.withLock { $0 } }
}

/// Retries everything it is asked about, at once, up to five attempts.
private struct AlwaysRetry: HTTPRetryPolicy {
    func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
        failure.attempt < 5 ? .retry(after: .milliseconds(1)) : .stop
    }
}
