import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageTestSupport

@testable import ImageServer

/// Cache poisoning through the server: an origin that writes past a response's `Content-Length` on a
/// keep-alive connection (a whole second response, or garbage) must never make the server answer another
/// source URL of that origin with those bytes. The server's HTTP loader refuses a pooled connection with
/// unread bytes and sends the request on a new one, so the next URL gets its own image, fresh and then
/// from the result cache, where a smuggled image would otherwise stay for `IMGPROXY_TTL`.
@Suite(.timeLimit(.minutes(3)))
struct ConnectionReuseThroughServerTests {
    /// What the origin writes on `/a.png`'s connection after its answer.
    enum Extra: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A whole HTTP/1.1 200 response carrying another PNG: what a reused connection would take for
        /// the next request's answer.
        case smuggledResponse
        /// Bytes that are no HTTP at all.
        case garbage

        var bytes: [UInt8] {
            switch self {
            case .smuggledResponse: OverflowingOrigin.response(ConnectionReuseThroughServerTests.smuggledPNG)
            case .garbage: Array("\u{0}\u{1}garbage past the Content-Length\r\n\r\n".utf8)
            }
        }

        var testDescription: String { rawValue }
    }

    // Three images of clearly different sizes and colours, so an answer tells at a glance whose it is.
    static let aPixels = pattern(width: 40, height: 30, channel: 0)
    static let bPixels = pattern(width: 24, height: 64, channel: 2)
    static let smuggledPixels = pattern(width: 56, height: 8, channel: 1)
    static let smuggledPNG = Fixtures.encoded(smuggledPixels, as: .png)

    /// RGB pixels with `channel` at full strength and the others a gradient.
    static func pattern(width: Int, height: Int, channel: Int) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                var pixel = [UInt8(x * 255 / width), UInt8(y * 255 / height), 40]
                pixel[channel] = 255
                bytes += pixel
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }

    @Test(arguments: Extra.allCases)
    func bytesAnOriginSendsPastAnAnswerNeverBecomeAnotherURLsImage(extra: Extra) async throws {
        let origin = try OverflowingOrigin(
            files: [
                "/a.png": Fixtures.encoded(Self.aPixels, as: .png),
                "/b.png": Fixtures.encoded(Self.bPixels, as: .png),
            ],
            overflowingPath: "/a.png", extra: extra.bytes)
        defer { origin.stop() }
        let servers = try await TestServers.start()

        let first = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: origin.url("/a.png"), extension: "png"))
        #expect(first.status == 200)
        try Self.expectImage(first.body, is: Self.aPixels, "a.png")

        // a.png's connection is back in the loader's pool: now the origin writes past its answer, and
        // request 2 starts only once those bytes wait, unread, in the loader's socket.
        origin.releaseExtra()
        try await eventuallyAsync("the origin wrote the extra bytes", timeout: .seconds(30), every: .milliseconds(10)) {
            origin.extraWasSent
        }
        try await eventuallyAsync(
            "the extra bytes reached the loader's socket", timeout: .seconds(30), every: .milliseconds(10)
        ) { LoopbackTCPTable.unreadBytes(fromPort: origin.port) > 0 }

        let bPath = servers.plainPath(source: origin.url("/b.png"), extension: "png")
        for answer in ["fetched", "from the result cache"] {
            let reply = try await HTTPClient.get(servers.baseURL + bPath)
            guard reply.status == 200 else {
                Issue.record(
                    "b.png \(answer): \(reply.status) \(String(decoding: reply.body.prefix(200), as: UTF8.self))")
                continue
            }
            try Self.expectImage(reply.body, is: Self.bPixels, "b.png \(answer)")
        }
        let metrics = try await ServerEdgeTests.metricsText(servers)
        #expect(
            ServerEdgeTests.sample(metrics, "webimage_server_result_cache_lookups_total{tier=\"memory\"}") == 1,
            "the second answer came from the result cache")
        #expect(origin.requests(for: "/b.png") == 1)

        // b.png was asked on a connection of its own; a.png's carried nothing more.
        let firstConnection = try #require(origin.connection(of: "/a.png"))
        #expect(origin.connection(of: "/b.png") != firstConnection, "b.png was asked on a.png's overflowing connection")
        #expect(origin.requests(on: firstConnection) == 1)
        #expect(origin.acceptedConnectionCount == 2)
        try await servers.stop()
    }

    /// Decodes `body` and expects exactly `expected`'s size and pixels (PNG in, PNG out: lossless).
    static func expectImage(
        _ body: Data, is expected: PixelBuffer, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let image = try Fixtures.decode(body)
        let smuggled =
            image.width == smuggledPixels.width && image.height == smuggledPixels.height ? " (the smuggled image)" : ""
        #expect(
            image.width == expected.width && image.height == expected.height,
            "\(what) is \(image.width)x\(image.height)\(smuggled), not \(expected.width)x\(expected.height)",
            sourceLocation: sourceLocation)
        #expect(
            image.pixels.converted(to: .rgba8).packed().bytes == expected.converted(to: .rgba8).packed().bytes,
            "\(what): other pixels", sourceLocation: sourceLocation)
    }
}
