import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

/// What comes back: response modifiers, decryptors, retries, progress, metrics and events.
@Suite(.timeLimit(.minutes(1)))
struct ResponseTests {
    let server: LoopbackHTTPServer
    let flakyAttempts = CompletionCounter()
    /// Opened by the test's progress handler each time a piece of `/gated-pieces.pgm` has arrived whole.
    let pieceGate = Gate()

    init() throws {
        server = try FaultServer.make()
        server.route("/flaky.pgm") { [flakyAttempts] _, connection in
            flakyAttempts.record(0)
            let attempt = flakyAttempts.total
            if attempt < 3 {
                try connection.respond(status: 503, headers: [("Content-Type", "text/plain")])
            } else {
                try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
            }
        }
        server.route("/encrypted") { _, connection in
            try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image.map { $0 ^ 0x5A })
        }
        // The image in eight pieces with a pause between: several progress callbacks.
        server.route("/pieces.pgm") { _, connection in
            let image = Self.piecesImage
            try connection.writeHead(
                status: 200, headers: FaultServer.imageHeaders + [("Content-Length", "\(image.count)")])
            for piece in Self.pieces {
                try connection.write(Array(image[piece]))
                try connection.pause(for: .milliseconds(20))
            }
        }
        // The same pieces, each sent only once the client reported the one before (the test opens the
        // gate): at least one progress callback per piece, however the machine schedules the two ends.
        server.route("/gated-pieces.pgm") { [pieceGate] _, connection in
            let image = Self.piecesImage
            try connection.writeHead(
                status: 200, headers: FaultServer.imageHeaders + [("Content-Length", "\(image.count)")])
            for (index, piece) in Self.pieces.enumerated() {
                if index > 0 { pieceGate.pass() }
                try connection.write(Array(image[piece]))
            }
        }
    }

    @Test func aResponseModifierCanRejectAResponse() async {
        let loader = makeLoader()
        var context = ImageContext()
        context.responseModifier = ResponseModifierBlock { _ throws(ImageError) in throw .invalidContentType("rejected")
        }
        #expect(failure(await load(loader, server.url("/ok.pgm"), context: context)) == .invalidContentType("rejected"))
    }

    @Test func aResponseModifierCanRewriteAResponseTheLoaderWouldReject() async throws {
        let loader = makeLoader()
        var context = ImageContext()
        context.responseModifier = ResponseModifierBlock { response in
            var response = response
            response.statusCode = 200
            return response
        }
        let result = try await load(loader, server.url("/server-error"), context: context).get()
        #expect(result.data == Data("boom".utf8))
        #expect(result.response?.statusCode == 200)
    }

    @Test func aDecryptorTransformsTheBody() async throws {
        let loader = makeLoader()
        var context = ImageContext()
        context.downloadDecryptor = DownloadDecryptorBlock { data, _ in Data(data.map { $0 ^ 0x5A }) }
        let result = try await load(loader, server.url("/encrypted"), context: context).get()
        #expect(result.data == Data(FaultServer.image))
    }

    @Test func aDecryptorThatFailsGivesBadImageData() async {
        let loader = makeLoader()
        var context = ImageContext()
        context.downloadDecryptor = DownloadDecryptorBlock { _, _ in nil }
        let error = failure(await load(loader, server.url("/encrypted"), context: context))
        guard case .badImageData = error else {
            Issue.record("expected .badImageData, got \(String(describing: error))"); return
        }
    }

    @Test func theRetryPolicyRetriesServerErrorsUntilSuccess() async throws {
        let loader = makeLoader { $0.retryPolicy = RetryUpTo(attempts: 3) }
        let token = Locked<HTTPDownloadToken?>(nil)
        let result: Result<LoadedImage, ImageError> = await withCheckedContinuation { continuation in
            let started = loader.download(server.url("/flaky.pgm")) { continuation.resume(returning: $0) }
            token.withLock { $0 = try? started.get() }
        }
        #expect(try result.get().data == Data(FaultServer.image))
        #expect(server.requestCount(for: "/flaky.pgm") == 3)
        #expect(token.withLock { $0?.metrics?.attempts } == 3)
    }

    @Test func clientErrorsAreNeverRetried() async {
        let loader = makeLoader { $0.retryPolicy = RetryUpTo(attempts: 5) }
        #expect(failure(await load(loader, server.url("/not-found"))) == .invalidStatusCode(404))
        #expect(server.requestCount(for: "/not-found") == 1)
    }

    @Test func withoutAPolicyNothingIsRetried() async {
        let loader = makeLoader()
        #expect(failure(await load(loader, server.url("/flaky.pgm"))) == .invalidStatusCode(503))
        #expect(server.requestCount(for: "/flaky.pgm") == 1)
    }

    /// The body of `/pieces.pgm` and `/gated-pieces.pgm`.
    static let piecesImage = [UInt8](PGMCoder.sample(width: 64, height: 64))
    /// Its eight pieces.
    static let pieces: [Range<Int>] = {
        let piece = piecesImage.count / 8 + 1
        return stride(from: 0, to: piecesImage.count, by: piece).map { $0..<min(piecesImage.count, $0 + piece) }
    }()

    @Test func progressIsReportedAsBytesArriveAndThrottledByTheMinimumInterval() async throws {
        let loader = makeLoader()
        // Every report, and how many pieces have arrived whole (each one lets the server send the next).
        let reports = Locked<(all: [LoadProgress], piecesIn: Int)>(([], 0))
        let ends = Self.pieces.map { Int64($0.upperBound) }
        _ = try await load(
            loader, server.url("/gated-pieces.pgm"),
            progress: { [pieceGate] p in
                let newlyIn = reports.withLock { reports in
                    reports.all.append(p)
                    let piecesIn = ends.filter { $0 <= p.receivedBytes }.count
                    defer { reports.piecesIn = max(reports.piecesIn, piecesIn) }
                    return max(0, piecesIn - reports.piecesIn)
                }
                pieceGate.open(newlyIn)
            }
        ).get()
        let all = reports.withLock { $0.all }
        #expect(all.count >= Self.pieces.count)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.receivedBytes < $1.receivedBytes })
        #expect(all.last?.receivedBytes == all.last?.expectedBytes)

        let throttled = Locked(0)
        var context = ImageContext()
        context.minimumProgressInterval = 60
        _ = try await load(
            loader, server.url("/pieces.pgm"), context: context, progress: { _ in throttled.withLock { $0 += 1 } }
        ).get()
        #expect(throttled.withLock { $0 } == 1)
    }

    @Test func eventsAndMetricsDescribeEachTransfer() async throws {
        let loader = makeLoader()
        let events = loader.events()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        var seen: [String] = []
        var metrics: [HTTPTransferMetrics] = []
        for await event in events {
            switch event {
            case .started: seen.append("started")
            case .responseReceived(_, let response): seen.append("response \(response.statusCode)")
            case .finished(_, _, let error, let m):
                seen.append(error == nil ? "finished" : "failed")
                if let m { metrics.append(m) }
            }
            if seen.count == 6 { break }
        }
        #expect(seen == ["started", "response 200", "finished", "started", "response 200", "finished"])
        #expect(metrics.count == 2)
        #expect(metrics.allSatisfy { $0.httpVersion == "1.1" && $0.bytesReceived == Int64(FaultServer.image.count) })
        // A new connection's phases are cumulative; a reused one skips DNS and connect.
        let first = metrics[0]
        #expect(
            first.total >= first.firstByte && first.firstByte >= first.connect && first.connect >= first.nameLookup,
            "\(first)")
        #expect(metrics[1].total >= metrics[1].firstByte, "\(metrics[1])")
        #expect(metrics[0].reusedConnection == false)
        #expect(metrics[1].reusedConnection == true)
    }
}

/// Retries anything it is asked about, immediately, up to `attempts` tries in all.
private struct RetryUpTo: HTTPRetryPolicy {
    let attempts: Int
    func decision(for failure: HTTPRetryContext) -> HTTPRetryDecision {
        failure.attempt < attempts ? .retry(after: .milliseconds(10)) : .stop
    }
}
