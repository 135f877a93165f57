import Foundation
import Testing
import WebImage
import WebImageTestSupport

@testable import ImageServer

/// The server in-process on 127.0.0.1 with an origin on another loopback port, driven over real HTTP.
@Suite struct ServerTests {
    static let key = "736563726574"  // "secret"
    static let salt = "68656c6c6f"  // "hello"

    static func signed(_ configuration: inout ServerConfiguration) throws {
        configuration.signingKeys = try EnvironmentReader(values: ["IMGPROXY_KEY": key, "IMGPROXY_SALT": salt])
            .keyPairs()
    }

    @Test func bothURLFormsServeTheSource() async throws {
        let servers = try await TestServers.start(configure: Self.signed)
        for path in [
            servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: "png"),
            servers.encodedPath(source: servers.sourceURL("/photo.jpg"), extension: "png"),
        ] {
            let reply = try await HTTPClient.get(servers.baseURL + path)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/png")
            let image = try Fixtures.decode(reply.body)
            #expect(image.width == Fixtures.photoSize.width && image.height == Fixtures.photoSize.height)
        }
        try await servers.stop()
    }

    @Test func signatures() async throws {
        let servers = try await TestServers.start(configure: Self.signed)
        let good = servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: "jpg")
        #expect(try await HTTPClient.get(servers.baseURL + good).status == 200)
        let unsigned = String(good.drop { $0 != "/" }.dropFirst().drop { $0 != "/" })
        for bad in [
            "/insecure" + unsigned, "/AAAA" + unsigned, "/" + unsigned.dropFirst(),
            good.replacingOccurrences(of: "@jpg", with: "@png"),
        ] {
            let reply = try await HTTPClient.get(servers.baseURL + bad)
            #expect(reply.status == 403 || reply.status == 404, "\(bad)")
        }
        // A wrong signature in the right shape is 403, not 404.
        let forged = "/" + String(repeating: "A", count: 43) + unsigned
        #expect(try await HTTPClient.get(servers.baseURL + forged).status == 403)
        try await servers.stop()
    }

    @Test func insecureModeWithoutKey() async throws {
        let servers = try await TestServers.start()
        let path = "/insecure/plain/" + DemoPage.percentEncoded(servers.sourceURL("/photo.jpg")) + "@webp"
        let reply = try await HTTPClient.get(servers.baseURL + path)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "image/webp")
        try await servers.stop()
    }

    @Test func allowListRefusesOtherSources() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.allowedSources = ["http://127.0.0.1:1/only-here/"]
        }
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(reply.status == 404)  // imgproxy's status for a source outside the allow-list
        #expect(String(decoding: reply.body, as: UTF8.self).contains("not allowed"))
        try await servers.stop()
    }

    @Test func loopbackSourcesRefusedByDefault() async throws {
        let servers = try await TestServers.start { configuration in configuration.allowsLoopbackSources = false }
        for source in [servers.sourceURL("/photo.jpg"), "http://localhost:\(servers.sourcePort)/photo.jpg"] {
            let reply = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: source))
            #expect(reply.status == 404, "\(source)")  // imgproxy: a source address error is 404
            #expect(String(decoding: reply.body, as: UTF8.self).contains("refused"))
        }
        try await servers.stop()
    }

    @Test func budgetsRefuseBombsAndTheServerKeepsServing() async throws {
        let servers = try await TestServers.start { configuration in configuration.maxSourceFileSize = 64 * 1024 }
        let bomb = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/bomb.png")))
        #expect(bomb.status == 422)
        let text = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/not-an-image.txt")))
        #expect(text.status == 422)
        let missing = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/missing.jpg")))
        #expect(missing.status == 404)
        let next = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(next.status == 200)
        try await servers.stop()
    }

    @Test func oversizedSourceFilesAreRefused() async throws {
        let servers = try await TestServers.start { configuration in configuration.maxSourceFileSize = 100 }
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(reply.status == 422)
        try await servers.stop()
    }

    @Test func negotiationFollowsAcceptWithVary() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.negotiatesWebP = true
            configuration.negotiatesAVIF = true
            configuration.maxAnimationFrames = 500
        }
        let photo = servers.baseURL + servers.encodedPath(source: servers.sourceURL("/photo.jpg"))
        let webp = try await HTTPClient.get(photo, headers: ["Accept": "image/avif;q=0,image/webp,*/*"])
        #expect(webp.header("Content-Type") == "image/webp")
        #expect(webp.header("Vary") == "Accept")
        let plain = try await HTTPClient.get(photo, headers: ["Accept": "image/png,*/*"])
        #expect(plain.header("Content-Type") == "image/jpeg")
        #expect(plain.header("Vary") == "Accept")
        let refused = try await HTTPClient.get(photo, headers: ["Accept": "image/webp;q=0"])
        #expect(refused.header("Content-Type") == "image/jpeg")
        // Alpha keeps PNG; an animation keeps GIF; an explicit extension wins (and still says `Vary: Accept`,
        // as imgproxy's answers all do once negotiation is on).
        let alpha = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/alpha.png")))
        #expect(alpha.header("Content-Type") == "image/png")
        let gif = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/anim.gif")))
        #expect(gif.header("Content-Type") == "image/gif")
        #expect(try Fixtures.decode(gif.body).frameCount == 3)
        let animatedWebP = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/anim.gif")),
            headers: ["Accept": "image/webp"])
        #expect(animatedWebP.header("Content-Type") == "image/webp")
        #expect(try Fixtures.decode(animatedWebP.body).frameCount == 3)
        let explicit = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/photo.jpg"), extension: "png"),
            headers: ["Accept": "image/webp"])
        #expect(explicit.header("Content-Type") == "image/png")
        #expect(explicit.header("Vary") == "Accept")
        try await servers.stop()
    }

    @Test func avifOnlyWhenAnEncoderIsRegistered() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.negotiatesWebP = true
            configuration.negotiatesAVIF = true
            configuration.maxAnimationFrames = 500
        }
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/photo.jpg")),
            headers: ["Accept": "image/avif,image/webp"])
        let expected = ImageCodersManager.shared.canEncode(to: .avif) ? "image/avif" : "image/webp"
        #expect(reply.header("Content-Type") == expected)
        try await servers.stop()
    }

    @Test func etagsAnswerNotModified() async throws {
        let servers = try await TestServers.start { $0.usesETag = true }
        let url = servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: "webp")
        let first = try await HTTPClient.get(url)
        let etag = try #require(first.header("ETag"))
        #expect(first.header("Cache-Control") == "max-age=\(ServerConfiguration.defaultTTL), public")
        let again = try await HTTPClient.get(url, headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        let changed = try await HTTPClient.get(url, headers: ["If-None-Match": "\"something-else\""])
        #expect(changed.status == 200)
        #expect(changed.body == first.body)
        try await servers.stop()
    }

    @Test func resultCacheHasTwoLevels() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-server-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let servers = try await TestServers.start { configuration in
            configuration.resultCacheDirectory = directory
            configuration.usesETag = true
        }
        let path = servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: "png")
        let first = try await HTTPClient.get(servers.baseURL + path)
        _ = try await HTTPClient.get(servers.baseURL + path)
        try await servers.stop()
        // A new server over the same directory answers from disk, with the same ETag.
        let second = try await TestServers.start { configuration in
            configuration.resultCacheDirectory = directory
            configuration.usesETag = true
        }
        let fromDisk = try await HTTPClient.get(second.baseURL + path)
        #expect(fromDisk.body == first.body)
        #expect(fromDisk.header("ETag") == first.header("ETag"))
        let metrics = String(decoding: try await HTTPClient.get(second.baseURL + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("webimage_server_result_cache_lookups_total{tier=\"disk\"} 1"))
        try await second.stop()
    }

    @Test func aFleetSharesResultsThroughRedis() async throws {
        let redis = try RedisServerProcess()
        defer { redis.stop() }
        // Two instances with nothing local below memory: the second answers from what the first stored.
        // Redis waits bounded by 10 s instead of 250 ms: a loaded test machine, not a production network.
        let first = try await TestServers.start { configuration in
            configuration.resultRedisURLs = [redis.url]
            configuration.resultRedisTimeout = 10
            configuration.usesETag = true
        }
        let path = first.plainPath(source: first.sourceURL("/photo.jpg"), extension: "png")
        let made = try await HTTPClient.get(first.baseURL + path)
        #expect(made.status == 200)
        try await eventuallyAsync("the Redis tier holds a key (writes are write-behind)", timeout: .seconds(60)) {
            redis.keyCount() > 0
        }
        try await first.stop()
        let second = try await TestServers.start { configuration in
            configuration.resultRedisURLs = [redis.url]
            configuration.resultRedisTimeout = 10
            configuration.usesETag = true
        }
        let shared = try await HTTPClient.get(second.baseURL + path)
        #expect(shared.body == made.body)
        #expect(shared.header("ETag") == made.header("ETag"))
        let metrics = String(decoding: try await HTTPClient.get(second.baseURL + "/metrics").body, as: UTF8.self)
        // Counted under the level that had it, and among the Redis tier's own events.
        #expect(metrics.contains("webimage_server_result_cache_lookups_total{tier=\"redis\"} 1"))
        #expect(metrics.contains("webimage_server_redis_events_total{event=\"hit\"} 1"))
        #expect(metrics.contains("webimage_server_redis_node_up{") && metrics.contains("} 1"))
        // Redis gone: requests are still answered, by processing again, and the node shows as down.
        redis.stop()
        let other = second.plainPath(source: second.sourceURL("/photo.jpg"), extension: "jpg")
        #expect(try await HTTPClient.get(second.baseURL + other).status == 200)
        try await waitUntilAsync {
            let text = String(decoding: try await HTTPClient.get(second.baseURL + "/metrics").body, as: UTF8.self)
            return text.split(separator: "\n").contains { line in
                line.hasPrefix("webimage_server_redis_node_up{")
                    && line.split(separator: " ").last.flatMap { Double($0) } == 0
            }
        }
        try await second.stop()
    }

    @Test func aFullQueueAnswers429WithRetryAfter() async throws {
        // The origin holds `/held.jpg` until the 503 is seen, so the download slot and its queue stay full
        // however slow the machine.
        let origin = AsyncGate()
        defer { origin.open() }  // also when an expectation throws first: no origin request is left waiting
        let servers = try await TestServers.start(files: Fixtures.files(holdingOn: origin)) { configuration in
            configuration.workers = 1
            configuration.downloadConcurrency = 1
            Fixtures.waitForHeldSources(&configuration)
        }
        let downloads = servers.server.service.downloads
        let queueLimit = downloads.queueLimit
        let heldTasks = (0...queueLimit).map { index in
            // Different options: different results, each waiting for its own download slot.
            let path = servers.plainPath(
                options: "q:\(50 + index)", source: servers.sourceURL("/held.jpg"), extension: "png")
            return Task { try await HTTPClient.get(servers.baseURL + path) }
        }
        try await waitUntil { downloads.runningCount == 1 && downloads.queuedCount == queueLimit }
        let refused = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == String(ServerFailure.overloadRetryAfterSeconds))
        origin.open()
        for task in heldTasks { #expect(try await task.value.status == 200) }
        // Health stays answered meanwhile and afterwards.
        #expect(try await HTTPClient.get(servers.baseURL + "/health").status == 200)
        try await servers.stop()
    }

    @Test func deadlineAnswers504() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.requestTimeout = 0.3
            configuration.downloadTimeout = 120
        }
        let started = ContinuousClock.now
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/hang.jpg")))
        #expect(reply.status == 504)
        // The deadline ended it, not the origin (which answers after a minute) nor the download timeout.
        #expect(ContinuousClock.now - started < .seconds(Fixtures.hangSeconds / 2))
        await servers.cancel()
    }

    @Test func deadlineAnswersWhileWorkIsStillRunning() async throws {
        let sawCancellation = DeadlineFlag()
        let finished = DeadlineFlag()
        let started = ContinuousClock.now
        let failure = await #expect(throws: ServerFailure.self) {
            try await withDeadline(.milliseconds(200)) {
                try await onWorkerThread { isCancelled throws(ImageError) in
                    // A transform that takes far longer than the deadline, checking between its steps.
                    for _ in 0..<1_000 {
                        if isCancelled() { sawCancellation.set(); break }
                        usleep(10_000)
                    }
                    finished.set()
                }
            }
        }
        #expect(failure?.status == 504)
        #expect(ContinuousClock.now - started < .seconds(5))  // the work alone would take ten
        try await waitUntil { finished.isSet }
        #expect(sawCancellation.isSet)
    }

    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        let origin = AsyncGate()
        defer { origin.open() }
        let servers = try await TestServers.start(
            files: Fixtures.files(holdingOn: origin), configure: Fixtures.waitForHeldSources)
        let gate = servers.server.service.downloads
        async let inFlight = HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/held.jpg"), extension: "png"))
        try await waitUntil { gate.runningCount == 1 }
        await servers.group.triggerGracefulShutdown()
        // The request is still at the origin when the shutdown begins.
        origin.open()
        let reply = try await inFlight
        #expect(reply.status == 200)
        try await servers.running.value
        await #expect(throws: (any Error).self) { try await HTTPClient.get(servers.baseURL + "/health") }
    }

    @Test func metricsAndHealth() async throws {
        let servers = try await TestServers.start()
        #expect(try await HTTPClient.get(servers.baseURL + "/health").status == 200)
        _ = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: "webp"))
        _ = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/bomb.png")))
        let reply = try await HTTPClient.get(servers.baseURL + "/metrics")
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(text.contains("webimage_server_requests_total{status=\"200\",format=\"webp\"} 1"))
        #expect(text.contains("webimage_server_requests_total{status=\"422\",format=\"none\"} 1"))
        #expect(text.contains("webimage_server_processing_seconds_count 1"))
        #expect(text.contains("webimage_server_source_fetch_seconds_count"))
        #expect(text.contains("webimage_server_queue_depth"))
        #expect(text.contains("webimage_server_result_cache_lookups_total{tier=\"miss\"}"))
        try await servers.stop()
    }

    @Test func fourFormatsOfOneSourceDecodeItOnce() async throws {
        let servers = try await TestServers.start()
        for ext in ["png", "webp", "jpg", "gif"] {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg"), extension: ext))
            #expect(reply.status == 200)
        }
        let text = String(decoding: try await HTTPClient.get(servers.baseURL + "/metrics").body, as: UTF8.self)
        // Each request records a source fetch; only the first went to the origin (the others hit the
        // decoded-source cache), which the origin's own count would show: check the loader's instead.
        #expect(text.contains("webimage_server_source_fetch_seconds_count 4"))
        #expect(servers.server.service.fetcher.decodedSources.image(forKey: servers.sourceURL("/photo.jpg")) != nil)
        try await servers.stop()
    }

    @Test func tenFitBoxesOfOneSourceFetchItOnce() async throws {
        let servers = try await TestServers.start()
        let source = servers.sourceURL("/photo.jpg")
        for side in 10..<20 {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: "rs:fit:\(side):\(side)", source: source, extension: "png")
            )
            #expect(reply.status == 200)
            let image = try Fixtures.decode(reply.body)
            #expect(max(image.width, image.height) == side)
        }
        // Ten decode sizes, so ten decodes; one transfer from the origin, nine decodes of the kept file.
        let text = String(decoding: try await HTTPClient.get(servers.baseURL + "/metrics").body, as: UTF8.self)
        #expect(text.contains("webimage_server_source_lookups_total{result=\"fetched\"} 1"))
        #expect(text.contains("webimage_server_source_lookups_total{result=\"kept_bytes\"} 9"))
        try await servers.stop()
    }

    @Test func sourceBytesOffFetchesEverySize() async throws {
        let servers = try await TestServers.start { $0.sourceBytesLimit = 0 }
        for side in [10, 11, 12] {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(
                        options: "rs:fit:\(side):\(side)", source: servers.sourceURL("/photo.jpg"), extension: "png"))
            #expect(reply.status == 200)
        }
        let text = String(decoding: try await HTTPClient.get(servers.baseURL + "/metrics").body, as: UTF8.self)
        #expect(text.contains("webimage_server_source_lookups_total{result=\"fetched\"} 3"))
        #expect(!text.contains("result=\"kept_bytes\""))
        try await servers.stop()
    }

    @Test func webpEffortReachesTheEncoder() async throws {
        var sizes: [Int] = []
        for effort in [0, 6] {
            let servers = try await TestServers.start { $0.webpEffort = effort }
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: "q:80", source: servers.sourceURL("/photo.jpg"), extension: "webp"))
            #expect(reply.status == 200 && reply.body.starts(with: Array("RIFF".utf8)))
            sizes.append(reply.body.count)
            try await servers.stop()
        }
        // libwebp's method 0 skips the searches method 6 makes: a larger file of the same picture.
        #expect(sizes[0] > sizes[1])
    }

    @Test func pngAnswersAreUnfilteredUnlessAskedOtherwise() async throws {
        var sizes: [EncodeOptions.RowFilter: Int] = [:]
        for filter in EncodeOptions.RowFilter.allCases {
            let servers = try await TestServers.start { $0.pngRowFilter = filter }
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(
                        options: "rs:fit:32:32", source: servers.sourceURL("/photo.jpg"), extension: "png"))
            #expect(reply.status == 200)
            let image = try Fixtures.decode(reply.body)
            #expect(image.format == .png && image.width == 32 && image.height == 24)
            sizes[filter] = reply.body.count
            try await servers.stop()
        }
        // libpng's adaptive filters predict a photo's rows; without them deflate sees the raw bytes.
        #expect(try #require(sizes[.none]) > #require(sizes[.adaptive]))
        #expect(try ServerConfiguration(environment: [:]).pngRowFilter == .none)
    }

    @Test func demoPageListsSignedURLsThatLoad() async throws {
        let files = Fixtures.standardFiles.filter { ["/photo.jpg", "/alpha.png", "/anim.gif"].contains($0.key) }
        let samples = [
            DemoSample(
                fileName: "photo.jpg", width: Fixtures.photoSize.width, height: Fixtures.photoSize.height,
                isAnimated: false),
            DemoSample(fileName: "anim.gif", width: 24, height: 24, isAnimated: true),
        ]
        let servers = try await TestServers.start(files: files) { configuration in
            try Self.signed(&configuration)
            configuration.demo = DemoConfiguration(sourceBaseURL: URL(string: "http://127.0.0.1:1/")!, samples: [])
        }
        let page = DemoPage(
            demo: DemoConfiguration(sourceBaseURL: URL(string: servers.sourceURL("/"))!, samples: samples),
            signer: servers.server.service.signer)
        #expect(!page.entries().isEmpty)
        for entry in page.entries() {
            let reply = try await HTTPClient.get(servers.baseURL + entry.path)
            #expect(reply.status == 200, "\(entry.caption)")
            let image = try Fixtures.decode(reply.body)
            #expect(image.width == entry.width && image.height == entry.height, "\(entry.caption)")
        }
        let html = try await HTTPClient.get(servers.baseURL + "/demo")
        #expect(html.status == 200)
        #expect(html.header("Content-Type") == "text/html; charset=utf-8")
        try await servers.stop()
    }
}

/// Waits for `condition`, checking every few milliseconds, for at most a generous minute.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    try await eventuallyAsync("the condition", timeout: .seconds(60), every: .milliseconds(5), condition)
}

/// Polls async `condition` until it holds (60 s bound, for loaded machines).
func waitUntilAsync(_ condition: () async throws -> Bool) async throws {
    try await eventuallyAsync("the condition", timeout: .seconds(60), every: .milliseconds(50), condition)
}
