import Foundation
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import Testing
import Tracing
import WebImageTestSupport

@testable import WebImageCore

/// A format of this suite's own, so the decode timer it checks is its alone.
private extension ImageFormat {
    static let observed = ImageFormat("observed-raw")
}

/// A RAWI coder that reports its images as ``ImageFormat/observed``.
private struct ObservedCoder: ImageCoder {
    var decodableFormats: [ImageFormat] { [.observed] }
    func canDecode(_ data: Data) -> Bool { RawImageCoder().canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        var image = try RawImageCoder().decode(data, options: options)
        image.format = .observed
        return image
    }
}

@Suite("Observability: logs, metrics and spans of the load flow")
struct ObservabilityTests {
    @Test func debugLogsTellTheStepsOfALoadAndInfoLogsNothing() async throws {
        let h = Harness()
        let url = Harness.url("logged.raw")
        h.loader.serve(RawImageCoder.solid(width: 6, height: 6), at: url)
        let debug = RecordingLog()
        var context = ImageContext()
        context.logger = debug.logger(level: .debug)
        _ = try await h.manager.image(for: url, context: context)
        #expect(debug.messages.contains("load started"))
        #expect(debug.messages.contains("downloaded"))
        #expect(debug.messages.contains("load finished"))
        #expect(debug.levels == [.debug])

        let quiet = RecordingLog()
        context.logger = quiet.logger(level: .info)
        context.queryCacheType = .none
        _ = try await h.manager.image(for: url, context: context)
        #expect(quiet.messages.isEmpty)
    }

    @Test func loadsDecodesCacheLookupsAndTheFailedListAreCounted() async throws {
        let metrics = TestBackends.metrics
        let h = Harness()
        h.manager.coders.addCoder(ObservedCoder())
        let url = Harness.url("counted.raw")
        h.loader.serve(RawImageCoder.solid(width: 4, height: 4), at: url)
        let loadsBefore = metrics.counterTotal(
            label: WebImageMetrics.loads,
            dimensions: [("result", "success"), ("source", "network")])
        let missesBefore = metrics.counterTotal(
            label: WebImageMetrics.cacheLookups,
            dimensions: [("tier", "all"), ("result", "miss")])
        _ = try await h.manager.image(for: url)
        #expect(
            metrics.counterTotal(
                label: WebImageMetrics.loads,
                dimensions: [("result", "success"), ("source", "network")]) > loadsBefore)
        #expect(
            metrics.counterTotal(
                label: WebImageMetrics.cacheLookups,
                dimensions: [("tier", "all"), ("result", "miss")]) > missesBefore)
        let decodes = try metrics.expectTimer(
            WebImageMetrics.decodeDuration,
            [("format", "observed-raw"), ("result", "success")])
        #expect(decodes.values.count == 1)
        #expect(decodes.values[0] > 0)

        // A permanent failure puts the URL on the failed list, which the failed-URL meter follows (other
        // suites move the same process-wide meter, so only its presence and a recording are certain here).
        let missing = Harness.url("missing-for-metrics.raw")
        await #expect(throws: ImageError.self) { _ = try await h.manager.image(for: missing) }
        #expect(h.manager.isFailedURL(missing))
        let meter = try metrics.expectMeter(WebImageMetrics.failedURLs)
        #expect(!meter.values.isEmpty)
        #expect(
            metrics.counterTotal(
                label: WebImageMetrics.loads,
                dimensions: [("result", "failure"), ("source", "none")]) >= 1)
    }

    @Test func aLoadIsOneTraceOfCacheQueryDownloadDecodeAndStore() async throws {
        let tracer = TestBackends.tracer
        let h = Harness()
        let url = Harness.url("traced.raw")
        h.loader.serve(RawImageCoder.solid(width: 3, height: 3), at: url)
        let traceID = try await withSpan("caller") { span in
            _ = try await h.manager.image(for: url, options: [.waitStoreCache])
            return span.context.inMemorySpanContext?.traceID
        }
        // The answer is delivered inside the load's span, which ends only when its body returns: the
        // caller can be resumed a moment before that.
        let spansOfTrace = { tracer.finishedSpans.filter { $0.traceID == traceID } }
        #expect(try await eventually { spansOfTrace().contains { $0.operationName == "webimage.load" } })
        let spans = spansOfTrace()
        let names = Set(spans.map(\.operationName))
        #expect(
            names.isSuperset(of: [
                "caller", "webimage.load", "webimage.cache.query", "webimage.download",
                "webimage.decode", "webimage.cache.store",
            ]))
        let load = try #require(spans.first { $0.operationName == "webimage.load" })
        let decode = try #require(spans.first { $0.operationName == "webimage.decode" })
        #expect(decode.parentSpanID == load.spanID)
    }
}
