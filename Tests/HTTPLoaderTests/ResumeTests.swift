import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader

/// A body cut short is kept with its validator; the next load asks for the rest with Range and
/// If-Range, and starts over whenever the server does not answer with exactly that rest.
@Suite(.timeLimit(.minutes(1)))
struct ResumeTests {
    let server: LoopbackHTTPServer
    /// 256 KB: well above the default minimum worth keeping (64 KB).
    static let size = 256 * 1024
    static let half = size / 2
    static let etag = "\"v1\""

    init() throws { server = try LoopbackHTTPServer() }

    /// An origin at `path` serving `size` bytes with a strong ETag, whose first response is cut at half.
    private func origin(
        _ path: String, _ adjust: (inout ResumableOrigin.Resource) -> Void = { _ in }
    ) -> ResumableOrigin {
        var resource = ResumableOrigin.Resource(body: ResumableOrigin.bytes(count: Self.size, seed: 7), etag: Self.etag)
        adjust(&resource)
        let origin = ResumableOrigin(resource)
        origin.cutNextResponses(after: [Self.half])
        origin.install(on: server, at: path)
        return origin
    }

    /// Loads `path` and waits until the loader has nothing left alive (so kept data is in place).
    private func loadAndSettle(
        _ loader: HTTPLoader, _ path: String,
        progress: LoadProgressHandler? = nil
    ) async -> Result<LoadedImage, ImageError> {
        let events = loader.events()
        let result = await load(loader, server.url(path), progress: progress)
        await waitUntilIdle(loader, events: events)
        return result
    }

    @Test func aBodyCutMidwayIsResumedWithRangeAndIfRange() async throws {
        let origin = origin("/big")
        let loader = makeLoader()
        let first = await loadAndSettle(loader, "/big")
        guard case .network(let code) = failure(first)?.httpLoaderFailure else {
            Issue.record("expected .network, got \(first)"); return
        }
        #expect(code == 18)  // CURLE_PARTIAL_FILE
        #expect(loader.resumableDataCount == 1)
        #expect(loader.resumableDataByteCount == Self.half)

        let second = try await loadAndSettle(loader, "/big").get()
        #expect(second.data == Data(origin.resource.body))
        // Callers see the whole body's head, not the 206 it was assembled from.
        #expect(second.response?.statusCode == 200)
        #expect(second.response?.headers["content-length"] == "\(Self.size)")
        #expect(second.response?.headers["content-range"] == nil)
        let exchanges = origin.exchanges
        #expect(exchanges.count == 2)
        #expect(exchanges[0].range == nil && exchanges[0].ifRange == nil)
        #expect(exchanges[1].range == "bytes=\(Self.half)-")
        #expect(exchanges[1].ifRange == Self.etag)
        #expect(exchanges[1].status == 206)
        #expect(loader.resumableDataCount == 0)
    }

    @Test func progressOfAResumedLoadCountsTheBytesAlreadyHeld() async throws {
        _ = origin("/big")
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/big")
        let reports = Locked<[LoadProgress]>([])
        _ = try await loadAndSettle(loader, "/big", progress: { p in reports.withLock { $0.append(p) } }).get()
        let all = reports.withLock { $0 }
        #expect(!all.isEmpty)
        #expect(all.allSatisfy { $0.receivedBytes > Int64(Self.half) && $0.expectedBytes == Int64(Self.size) })
        #expect(all.last?.receivedBytes == Int64(Self.size))
    }

    @Test func aRetryAfterACutResumesWithinOneLoad() async throws {
        let origin = origin("/big")
        let loader = makeLoader { $0.retryPolicy = HTTPBackoffRetryPolicy(baseDelay: .milliseconds(1)) }
        let token = Locked<HTTPDownloadToken?>(nil)
        let result: Result<LoadedImage, ImageError> = await withCheckedContinuation { continuation in
            let started = loader.download(server.url("/big")) { continuation.resume(returning: $0) }
            token.withLock { $0 = try? started.get() }
        }
        #expect(try result.get().data == Data(origin.resource.body))
        #expect(origin.exchanges.map(\.status) == [200, 206])
        #expect(token.withLock { $0?.metrics?.attempts } == 2)
        #expect(token.withLock { $0?.metrics?.bytesReceived } == Int64(Self.size))
    }

    @Test func aServerThatIgnoresRangeGivesTheWholeBodyOnce() async throws {
        let origin = origin("/big")
        origin.rangeSupport = .ignores
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/big")
        let second = try await loadAndSettle(loader, "/big").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(origin.exchanges.last?.range == "bytes=\(Self.half)-")
        #expect(origin.exchanges.last?.status == 200)
    }

    @Test func aChangedResourceStartsOver() async throws {
        let origin = origin("/big")
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/big")
        origin.resource.body = ResumableOrigin.bytes(count: Self.size + 1000, seed: 99)
        origin.resource.etag = "\"v2\""
        let second = try await loadAndSettle(loader, "/big").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(second.response?.headers["etag"] == "\"v2\"")
        #expect(origin.exchanges.last?.ifRange == Self.etag)
        #expect(origin.exchanges.last?.status == 200)
    }

    @Test func aRangeTheServerRefusesStartsOverAtOnce() async throws {
        let origin = origin("/big")
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/big")
        origin.rangeSupport = .refuses
        let second = try await loadAndSettle(loader, "/big").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(origin.exchanges.map(\.status) == [200, 416, 200])
        #expect(origin.exchanges.last?.range == nil)
    }

    @Test func aRangeOtherThanTheRestStartsOverAtOnce() async throws {
        let origin = origin("/big")
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/big")
        origin.rangeSupport = .sendsTheWrongRange
        let second = try await loadAndSettle(loader, "/big").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(origin.exchanges.map(\.status) == [200, 206, 200])
        #expect(origin.exchanges.last?.range == nil)
    }

    @Test func aWeakETagIsNotEnoughToResume() async {
        let origin = origin("/weak") { $0.etag = "W/\"v1\"" }
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/weak")
        #expect(loader.resumableDataCount == 0)
        _ = await loadAndSettle(loader, "/weak")
        #expect(origin.exchanges.last?.range == nil)
    }

    @Test func aLastModifiedOlderThanTheDateIsAStrongEnoughValidator() async throws {
        let now = Date()
        let lastModified = ResumableOrigin.httpDate(now.addingTimeInterval(-3600))
        let origin = origin("/dated") {
            $0.etag = nil
            $0.lastModified = lastModified
            $0.date = ResumableOrigin.httpDate(now)
        }
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/dated")
        let second = try await loadAndSettle(loader, "/dated").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(origin.exchanges.last?.ifRange == lastModified)
    }

    @Test func aLastModifiedWithoutADateIsNotEnoughToResume() async {
        let origin = origin("/undated") {
            $0.etag = nil
            $0.lastModified = "Mon, 02 Nov 2026 10:00:00 GMT"
        }
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/undated")
        #expect(loader.resumableDataCount == 0)
        _ = await loadAndSettle(loader, "/undated")
        #expect(origin.exchanges.last?.range == nil)
    }

    @Test func theSizeLimitCountsTheBytesAlreadyHeld() async {
        // Chunked, so the first response declares no length and gets cut under the limit.
        let origin = origin("/chunked") { $0.chunked = true }
        let loader = makeLoader { $0.maxResponseSize = Self.size - 1 }
        _ = await loadAndSettle(loader, "/chunked")
        #expect(loader.resumableDataByteCount == Self.half)
        let second = await loadAndSettle(loader, "/chunked")
        #expect(failure(second) == .responseTooLarge(limit: Self.size - 1))
        #expect(origin.exchanges.last?.status == 206)
    }

    @Test func keptBodiesNeverExceedTheCapacityAndTheOldestGoesFirst() async {
        let capacity = 100 * 1024
        let loader = makeLoader {
            $0.resumableDataCapacity = capacity
            $0.minimumResumableBytes = 1
        }
        let a = origin("/a")
        a.cutNextResponses(after: [60 * 1024])
        let b = origin("/b")
        b.cutNextResponses(after: [60 * 1024])
        let tooBig = origin("/too-big")
        tooBig.cutNextResponses(after: [capacity + 1])

        _ = await loadAndSettle(loader, "/a")
        #expect(loader.resumableDataByteCount == 60 * 1024)
        _ = await loadAndSettle(loader, "/b")
        #expect(loader.resumableDataCount == 1)
        #expect(loader.resumableDataByteCount == 60 * 1024)
        _ = await loadAndSettle(loader, "/too-big")
        #expect(loader.resumableDataByteCount <= capacity)
        #expect(loader.resumableDataCount == 1)

        _ = await loadAndSettle(loader, "/a")
        _ = await loadAndSettle(loader, "/b")
        #expect(a.exchanges.last?.range == nil)  // evicted by /b
        #expect(b.exchanges.last?.range == "bytes=\(60 * 1024)-")
    }

    @Test func keptBytesSurviveAnAttemptThatNeverConnects() async throws {
        let vanishing = try LoopbackHTTPServer()
        let origin = ResumableOrigin(.init(body: ResumableOrigin.bytes(count: Self.size, seed: 3), etag: Self.etag))
        origin.cutNextResponses(after: [Self.half])
        origin.install(on: vanishing, at: "/big")
        let loader = makeLoader()
        let url = vanishing.url("/big")
        let events = loader.events()
        _ = await load(loader, url)
        await waitUntilIdle(loader, events: events)
        vanishing.shutdown()
        // Held to the end, so the port refuses rather than reaching a server a parallel test just started.
        let closed = try RefusingPort(port: vanishing.port)
        defer { closed.close() }
        let refused = await load(loader, url)
        guard case .network(let code) = failure(refused)?.httpLoaderFailure else {
            Issue.record("expected .network, got \(refused)"); return
        }
        #expect(code == 7)  // CURLE_COULDNT_CONNECT
        await waitUntilIdle(loader, events: events)
        #expect(loader.resumableDataByteCount == Self.half)
    }

    @Test func aSmallCutBodyIsNotKept() async {
        let origin = origin("/small")
        origin.cutNextResponses(after: [1024])
        let loader = makeLoader()
        _ = await loadAndSettle(loader, "/small")
        #expect(loader.resumableDataCount == 0)
    }

    @Test func aCancelledTransferKeepsItsBytesForTheNextLoad() async throws {
        let origin = origin("/stalls")
        origin.stallsAtCut = true
        let loader = makeLoader()
        let events = loader.events()
        let halfway = AsyncStream<Void>.makeStream()
        let token = try loader.download(
            server.url("/stalls"),
            progress: { p in
                if p.receivedBytes >= Int64(Self.half) { halfway.continuation.yield() }
            }
        ) { _ in Issue.record("a cancelled caller must not complete") }.get()
        for await _ in halfway.stream { break }
        token.cancel()
        await waitUntilIdle(loader, events: events)
        #expect(loader.resumableDataByteCount == Self.half)

        let second = try await loadAndSettle(loader, "/stalls").get()
        #expect(second.data == Data(origin.resource.body))
        #expect(origin.exchanges.last?.range == "bytes=\(Self.half)-")
    }
}
