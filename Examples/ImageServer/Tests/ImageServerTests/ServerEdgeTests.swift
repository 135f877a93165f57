import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageTestSupport

@testable import ImageServer

/// The server under clients and origins that misbehave: connections that idle, drip or never read,
/// oversized heads, stalled origins, options that cannot be applied, a disk level with a limit.
@Suite struct ServerEdgeTests {
    /// Waits (polling, with a long bound for loaded machines) until `condition` holds; false if it never did.
    static func eventually(
        within limit: Duration = .seconds(60), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// What `operation` returns, or nil when it has not returned within `limit` (then cancelled): a bound
    /// for a broken run, not a guess at how long anything takes.
    static func within<T: Sendable>(
        _ limit: Duration = .seconds(60),
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    static func metricsText(_ servers: TestServers) async throws -> String {
        String(decoding: try await HTTPClient.get(servers.baseURL + "/metrics").body, as: UTF8.self)
    }

    /// The value of one sample line (`name{labels} value`) of the exposition, 0 when absent.
    static func sample(_ text: String, _ line: String) -> Double {
        for row in text.split(separator: "\n") where row.hasPrefix(line + " ") {
            return Double(row.dropFirst(line.count + 1)) ?? 0
        }
        return 0
    }

    @Test func idleConnectionsAreClosed() async throws {
        let servers = try await TestServers.start { $0.clientDeadlines.keepAlive = .seconds(1) }
        let idle = try RawConnection(port: servers.serverPort)
        // Never sends a byte: Hummingbird's idle timeout (IMGPROXY_KEEP_ALIVE_TIMEOUT) closes it.
        #expect(await idle.readUntilClosed(limit: .seconds(30)).closed)

        // Kept alive after an answer, then idle: closed as well.
        let kept = try RawConnection(port: servers.serverPort)
        kept.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, closed) = await kept.readUntilClosed(limit: .seconds(30))
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        #expect(closed)
        try await servers.stop()
    }

    @Test func slowlorisHeadsAreClosed() async throws {
        // The keep-alive timeout is long: only the request-read deadline can end this connection.
        let servers = try await TestServers.start { configuration in
            configuration.clientDeadlines.keepAlive = .seconds(300)
            configuration.clientDeadlines.readRequest = .seconds(1)
        }
        let connection = try RawConnection(port: servers.serverPort)
        let head = Array("GET /health HTTP/1.1\r\nHost: example\r\nX-Padding: " + String(repeating: "a", count: 10_000))
        var closed = false
        let deadline = ContinuousClock.now + .seconds(30)
        var index = 0
        // One byte every 50 ms: the head would take over eight minutes.
        while ContinuousClock.now < deadline, index < head.count {
            if !connection.send(String(head[index])) { closed = true; break }
            index += 1
            if await connection.read(timeout: .milliseconds(50)) == .closed { closed = true; break }
        }
        #expect(closed)
        #expect(
            Self.sample(
                try await Self.metricsText(servers), "webimage_server_client_timeouts_total{reason=\"read_request\"}")
                >= 1)
        try await servers.stop()
    }

    @Test func clientsThatDoNotReadTheirAnswerAreClosed() async throws {
        // 1500 x 1500 pixels of noise: a PNG of about 6.8 MB, more than the kernel buffers of both sides
        // (the sender's grows to 4 MB). Made off the cooperative pool, which the server needs meanwhile.
        let side = 1500
        let png = await offThePool { Fixtures.encoded(Fixtures.noisePixels(side: side), as: .png) }
        var files = Fixtures.standardFiles
        files["/noise.png"] = .init(data: png, contentType: "image/png")
        let servers = try await TestServers.start(files: files) { configuration in
            configuration.clientDeadlines.writeResponse = .seconds(1)
            configuration.clientDeadlines.keepAlive = .seconds(300)
        }
        let path = servers.plainPath(source: servers.sourceURL("/noise.png"), extension: "png")
        let connection = try RawConnection(port: servers.serverPort, receiveBuffer: 4096)
        connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
        // The client reads nothing until the server says it gave up on the write.
        #expect(
            try await Self.eventually {
                Self.sample(
                    try await Self.metricsText(servers),
                    "webimage_server_client_timeouts_total{reason=\"write_response\"}") >= 1
            })
        let (bytes, closed) = await connection.readUntilClosed(limit: .seconds(60))
        #expect(closed)
        #expect(bytes.count < png.count, "the whole answer was never sent")
        try await servers.stop()
    }

    @Test func oversizedHeadsLeaveNoSocketBehind() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.clientDeadlines.keepAlive = .seconds(300)
        }
        // Each head is over Hummingbird's 80 KB header limit: 400, then the server closes its side.
        // The clients stay open and never close theirs: the server must still let go of every socket.
        let head = "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 100_000) + "\r\n\r\n"
        var clients: [RawConnection] = []
        for _ in 0..<16 {
            let client = try RawConnection(port: servers.serverPort)
            client.send(head)
            // Read at once: past the linger time the server closes with the head's rest unread, which
            // resets the connection and may drop the 400 before it is read.
            guard case .bytes(let bytes) = await client.read(timeout: .seconds(30)) else {
                Issue.record("no answer"); return
            }
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
            clients.append(client)
        }
        #expect(
            await Self.eventually { LoopbackTCPTable.serverSocketsHeld(port: servers.serverPort) == 0 },
            "server sockets still held: \(LoopbackTCPTable.serverSocketsHeld(port: servers.serverPort))")
        withExtendedLifetime(clients) {}
        try await servers.stop()
    }

    @Test func maxClientsBoundsOpenConnections() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.maxClients = 2
            configuration.clientDeadlines.keepAlive = .seconds(300)
        }
        let first = try RawConnection(port: servers.serverPort)
        let second = try RawConnection(port: servers.serverPort)
        for connection in [first, second] {
            connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            guard case .bytes(let bytes) = await connection.read(timeout: .seconds(30)) else {
                Issue.record("no answer"); return
            }
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        }
        // A third connection is accepted by the kernel but not served while the two stay open.
        let third = try RawConnection(port: servers.serverPort)
        third.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await third.read(timeout: .seconds(1)) == .nothing)
        withExtendedLifetime(first) {}
        second.closeSocket()
        // Once one closes, the waiting one is served.
        guard case .bytes(let bytes) = await third.read(timeout: .seconds(30)) else {
            Issue.record("never served"); return
        }
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        try await servers.stop()
    }

    @Test func aStalledOriginDoesNotHoldTheOnlyWorker() async throws {
        let origin = AsyncGate()
        defer { origin.open() }
        let servers = try await TestServers.start(files: Fixtures.files(holdingOn: origin)) { configuration in
            Fixtures.waitForHeldSources(&configuration)
            configuration.workers = 1
            configuration.queueSize = 0
        }
        let held = Task {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/held.jpg")))
        }
        #expect(await Self.eventually { servers.server.service.downloads.runningCount == 1 })
        // The only worker is free: another source is fetched and processed meanwhile.
        let other = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(other.status == 200)
        #expect(servers.server.service.gate.runningCount == 0)
        origin.open()
        #expect(try await held.value.status == 200)
        try await servers.stop()
    }

    /// A stalled `IMGPROXY_WATERMARK_URL` origin holds no worker either: the mark is fetched, like a source,
    /// before a worker slot is taken. With one worker and no queue, a request without a watermark is
    /// answered while the first waits for its mark (a held worker would make it 429).
    @Test func aStalledWatermarkOriginDoesNotHoldTheOnlyWorker() async throws {
        let origin = AsyncGate()
        defer { origin.open() }
        var markFiles = Fixtures.standardFiles
        markFiles["/held-mark.png"] = .init(
            data: Fixtures.encoded(Fixtures.alphaPixels(), as: .png), contentType: "image/png",
            release: { await origin.wait() })
        let markOrigin = try await TestServers.start(files: markFiles)
        let servers = try await TestServers.start { configuration in
            Fixtures.waitForHeldSources(&configuration)
            configuration.workers = 1
            configuration.queueSize = 0
            configuration.watermarkURL = URL(string: markOrigin.sourceURL("/held-mark.png"))
        }
        let marked = Task {
            try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: "wm:1:ce", source: servers.sourceURL("/photo.jpg"), extension: "png"))
        }
        await origin.arrived(1)
        let other = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(other.status == 200)
        #expect(
            servers.server.service.gate.runningCount == 0, "the marked request holds no worker while its mark is held")
        origin.open()
        #expect(try await marked.value.status == 200)
        try await servers.stop()
        try await markOrigin.stop()
    }

    /// Downloads from one origin take at most their share of the download slots: with two slots and one
    /// per origin, a second request to a stalled origin waits in its origin's queue while a request to
    /// another origin (`localhost` beside `127.0.0.1`) takes the other slot and is answered.
    @Test func aStalledOriginTakesOnlyItsShareOfTheDownloadSlots() async throws {
        let origin = AsyncGate()
        defer { origin.open() }
        let servers = try await TestServers.start(files: Fixtures.files(holdingOn: origin)) { configuration in
            Fixtures.waitForHeldSources(&configuration)
            configuration.downloadConcurrency = 2
            configuration.downloadsPerOrigin = 1
        }
        let downloads = servers.server.service.downloads
        let held = servers.sourceURL("/held.jpg")
        let first = Task {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "rs:fit:10:10", source: held))
        }
        #expect(await Self.eventually { downloads.runningCount == 1 })
        let second = Task {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "rs:fit:20:20", source: held))
        }
        #expect(await Self.eventually { downloads.queuedCount == 1 })
        let elsewhere = "http://localhost:\(servers.sourcePort)/photo.jpg"
        // Bounded, so that a regression fails here instead of waiting out the held origin.
        let answered = try await Self.within {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: elsewhere)).status
        }
        #expect(answered == 200)
        #expect(
            downloads.runningCount == 1 && downloads.queuedCount == 1, "the stalled origin's requests are still held")
        origin.open()
        #expect(try await first.value.status == 200)
        #expect(try await second.value.status == 200)
        try await servers.stop()
    }

    /// A source the server holds in memory (decoded or as bytes) never waits for a download slot.
    @Test func aSourceInMemoryDoesNotWaitForADownloadSlot() async throws {
        let origin = AsyncGate()
        defer { origin.open() }
        let servers = try await TestServers.start(files: Fixtures.files(holdingOn: origin)) { configuration in
            Fixtures.waitForHeldSources(&configuration)
            configuration.downloadConcurrency = 1
        }
        let photo = servers.sourceURL("/photo.jpg")
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "rs:fit:40:40", source: photo)).status
                == 200)
        let held = Task {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/held.jpg")))
        }
        #expect(await Self.eventually { servers.server.service.downloads.runningCount == 1 })
        // Another size of the photo: its bytes are kept, so it needs no download and no slot.
        let again = try await Self.within {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "rs:fit:30:30", source: photo)).status
        }
        #expect(again == 200)
        origin.open()
        #expect(try await held.value.status == 200)
        try await servers.stop()
    }

    @Test func optionsATransformerCannotApplyFailInsteadOfAnsweringTheSource() async throws {
        let servers = try await TestServers.start()
        let source = servers.sourceURL("/photo.jpg")
        for options in ["rs:force:12000:12000:1", "rs:fit:100:100:1/pd:16384"] {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: options, source: source, extension: "png"))
            #expect((400..<500).contains(reply.status), "\(options): \(reply.status)")
        }
        // Nothing was cached under those URLs: a second ask fails the same way.
        let again = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:force:12000:12000:1", source: source, extension: "png"))
        #expect((400..<500).contains(again.status))
        try await servers.stop()
    }

    @Test func optionsOutsideTheirRangeAreRefusedBeforeAnyFetch() async throws {
        let servers = try await TestServers.start()
        let source = servers.sourceURL("/photo.jpg")
        for options in ["bl:1000", "sh:300", "bl:201", "sh:101"] {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: options, source: source, extension: "png"))
            #expect(reply.status == 404, "\(options): \(reply.status)")
        }
        for options in ["bl:200", "sh:100"] {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: options, source: source, extension: "png"))
            #expect(reply.status == 200, "\(options): \(reply.status)")
        }
        try await servers.stop()
    }

    @Test func theDiskLevelStaysWithinItsLimit() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("results-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = 64 * 1024
        let servers = try await TestServers.start { configuration in
            configuration.resultCacheDirectory = directory
            configuration.resultDiskLimit = limit
        }
        let source = servers.sourceURL("/photo.jpg")
        for side in 20..<60 {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: "rs:force:\(side * 8):\(side * 6)", source: source, extension: "png"))
            #expect(reply.status == 200)
        }
        let disk = try #require(servers.server.service.resultCache.local)
        await disk.waitForMaintenance()
        #expect(disk.totalSize <= limit, "\(disk.totalSize) bytes on disk")
        #expect(disk.totalCount > 0)
        try await servers.stop()
    }

    @Test func theAllowListHoldsOnEveryRedirectHop() async throws {
        var files = Fixtures.standardFiles
        files["/allowed/photo.jpg"] = files["/photo.jpg"]
        files["/allowed/out.jpg"] = .redirect(to: "/photo.jpg")
        files["/allowed/in.jpg"] = .redirect(to: "/allowed/photo.jpg")
        let servers = try await TestServers.start(files: files) { configuration in
            configuration.allowedSources = ["http://127.0.0.1:*/allowed/"]
        }
        let outside = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/allowed/out.jpg")))
        #expect(outside.status == 404, "a hop out of the allow-list is refused by the loader: \(outside.status)")
        let inside = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/allowed/in.jpg")))
        #expect(inside.status == 200)
        let direct = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
        #expect(direct.status == 404)
        try await servers.stop()
    }
}
