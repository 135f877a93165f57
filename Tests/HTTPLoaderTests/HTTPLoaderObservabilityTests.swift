import Foundation
import Logging
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageHTTPLoader

/// What the HTTP loader tells an operator: debug logs through the configured (or the request's) logger,
/// and its own metrics. Metrics go to the process's one test backend, shared with suites running in
/// parallel, so counters are checked for growth and meters for having been recorded.
@Suite("HTTP loader: logs and metrics", .timeLimit(.minutes(1)))
struct HTTPLoaderObservabilityTests {
    let server: LoopbackHTTPServer

    init() throws { server = try FaultServer.make() }

    @Test func aTransferLogsItsStartAndItsEndWithStatusBytesAndTiming() async throws {
        let log = RecordingLog()
        let loader = makeLoader(logger: log.logger(level: .trace))
        _ = try await load(loader, server.url("/ok.pgm")).get()
        #expect(log.messages.contains("request queued"))
        #expect(log.entries("transfer started").count == 1)
        let finished = try #require(log.entries("transfer finished").first)
        #expect(finished.metadata["status"] == "200")
        #expect(finished.metadata["bytes"] == "\(FaultServer.image.count)")
        #expect(finished.metadata["total_ms"] != nil)
        #expect(finished.metadata["error"] == nil)
        #expect(log.levels.isSubset(of: [.trace, .debug]))
    }

    @Test func theRequestsLoggerWinsOverTheLoaders() async throws {
        let configured = RecordingLog()
        let perRequest = RecordingLog()
        let loader = makeLoader(logger: configured.logger(level: .debug))
        var context = ImageContext()
        context.logger = perRequest.logger(level: .debug)
        _ = try await load(loader, server.url("/ok.pgm"), context: context).get()
        #expect(perRequest.messages.contains("transfer finished"))
        #expect(configured.messages.isEmpty)
    }

    @Test func nothingIsLoggedAtInfo() async throws {
        let log = RecordingLog()
        let loader = makeLoader(logger: log.logger(level: .info))
        _ = try await load(loader, server.url("/ok.pgm")).get()
        _ = await load(loader, server.url("/no-such-route"))
        #expect(log.messages.isEmpty)
    }

    @Test func aRetryIsLoggedWithItsReasonAndCounted() async throws {
        let metrics = TestBackends.metrics
        let retriesBefore = metrics.counterTotal(label: HTTPLoaderMetrics.retries, dimensions: [("reason", "status")])
        let script = ScriptedRoute(failures: [(503, [])])
        server.route("/flaky") { _, connection in try script.answer(connection) }
        let log = RecordingLog()
        let loader = makeLoader(logger: log.logger(level: .debug)) {
            $0.retryPolicy = HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1))
        }
        _ = try await load(loader, server.url("/flaky")).get()
        let retry = try #require(log.entries("retrying").first)
        #expect(retry.metadata["reason"] == "status")
        #expect(retry.metadata["attempt"] == "1")
        #expect(log.entries("transfer finished").last?.metadata["status"] == "200")
        #expect(
            metrics.counterTotal(label: HTTPLoaderMetrics.retries, dimensions: [("reason", "status")])
                >= retriesBefore + 1)
    }

    @Test func theAddressGuardsRefusalIsLoggedWithTheAddress() async throws {
        let log = RecordingLog()
        let loader = makeLoader(logger: log.logger(level: .debug)) {
            $0.refusesPrivateAddresses = true
        }
        let result = await load(loader, server.url("/ok.pgm"))
        guard case .requestRefused = failure(result) else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        let refusal = try #require(log.entries("connection refused by the address guard").first)
        #expect(refusal.metadata["address"] == "127.0.0.1")
        #expect(log.entries("transfer finished").first?.metadata["status"] == "none")
    }

    @Test func finishedTransfersAreCountedByStatusClassWithBytesAndTimeToFirstByte() async throws {
        let metrics = TestBackends.metrics
        let okBefore = metrics.counterTotal(
            label: HTTPLoaderMetrics.requests,
            dimensions: [("status", "2xx"), ("result", "success")])
        let missingBefore = metrics.counterTotal(
            label: HTTPLoaderMetrics.requests,
            dimensions: [("status", "4xx"), ("result", "failure")])
        let bytesBefore = metrics.counterTotal(label: HTTPLoaderMetrics.responseBytes)
        let loader = makeLoader()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        _ = await load(loader, server.url("/no-such-route"))
        #expect(
            metrics.counterTotal(
                label: HTTPLoaderMetrics.requests,
                dimensions: [("status", "2xx"), ("result", "success")]) >= okBefore + 1)
        #expect(
            metrics.counterTotal(
                label: HTTPLoaderMetrics.requests,
                dimensions: [("status", "4xx"), ("result", "failure")]) >= missingBefore + 1)
        #expect(
            metrics.counterTotal(label: HTTPLoaderMetrics.responseBytes)
                >= bytesBefore + Int64(FaultServer.image.count))
        #expect(try !metrics.expectTimer(HTTPLoaderMetrics.timeToFirstByte).values.isEmpty)
        // Both meters moved up when the transfer was queued and started, and back when it ended.
        #expect(try metrics.expectMeter(HTTPLoaderMetrics.queuedRequests).values.count >= 2)
        #expect(try metrics.expectMeter(HTTPLoaderMetrics.activeTransfers).values.count >= 2)
    }

    @Test func statusClassesAndRetryReasonsAreNamedAsDocumented() {
        #expect(HTTPMetricsRecorder.statusClass(nil) == "none")
        #expect(HTTPMetricsRecorder.statusClass(204) == "2xx")
        #expect(HTTPMetricsRecorder.statusClass(304) == "3xx")
        #expect(HTTPMetricsRecorder.statusClass(503) == "5xx")
        #expect(HTTPMetricsRecorder.statusClass(0) == "none")
        #expect(HTTPMetricsRecorder.retryReason(.timeout) == "timeout")
        #expect(HTTPMetricsRecorder.retryReason(.httpLoader(.network(curlCode: 7), message: "refused")) == "network")
        #expect(HTTPMetricsRecorder.retryReason(.invalidStatusCode(503)) == "status")
    }
}
