import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader

/// What goes out: default and user headers, request modifiers, credentials and cookies.
@Suite(.timeLimit(.minutes(1)))
struct RequestTests {
    let server: LoopbackHTTPServer

    init() throws {
        server = try FaultServer.make()
        server.route("/auth.pgm") { request, connection in
            // "user:secret" in base64.
            if request.headers["authorization"] == "Basic dXNlcjpzZWNyZXQ=" {
                try connection.respond(headers: FaultServer.imageHeaders, body: FaultServer.image)
            } else {
                try connection.respond(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"images\"")])
            }
        }
        server.route("/set-cookie.pgm") { _, connection in
            try connection.respond(
                headers: FaultServer.imageHeaders + [("Set-Cookie", "session=abc; Path=/")],
                body: FaultServer.image)
        }
    }

    @Test func defaultHeadersNameTheLibraryAndTheRegisteredFormats() async throws {
        let loader = makeLoader()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        let headers = try #require(server.requestLog.last?.headers)
        #expect(headers["user-agent"]?.hasPrefix("SwiftWebImage/") == true)
        #expect(headers["user-agent"]?.contains("libcurl/") == true)
        #expect(headers["accept"] == "image/x-portable-graymap,*/*;q=0.8")
        // libcurl's list of what it decodes (see ContentDecodingTests).
        #expect(headers["accept-encoding"]?.contains("gzip") == true)
    }

    @Test func acceptListsWebPOnlyWhenAWebPCoderIsRegistered() {
        let coders = ImageCodersManager(coders: [PGMCoder()])
        var configuration = HTTPLoaderConfiguration()
        configuration.coders = coders
        let loader = HTTPLoader(configuration: configuration)
        #expect(!loader.acceptHeader.contains("image/webp"))
        coders.addCoder(WebPStandIn())
        #expect(loader.acceptHeader.hasPrefix("image/x-portable-graymap,image/webp"))
    }

    @Test func configuredHeadersAreSentAndOverrideDefaults() async throws {
        let loader = makeLoader { $0.headers = ["X-Client": "tests", "user-agent": "Custom/2"] }
        _ = try await load(loader, server.url("/ok.pgm")).get()
        let headers = try #require(server.requestLog.last?.headers)
        #expect(headers["x-client"] == "tests")
        #expect(headers["user-agent"] == "Custom/2")
    }

    @Test func aRequestModifierCanRefuseARequestBeforeItIsSent() async {
        let loader = makeLoader()
        var context = ImageContext()
        context.requestModifier = RequestModifierBlock { _ in nil }
        let error = failure(await load(loader, server.url("/ok.pgm"), context: context))
        guard case .requestRefused = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(server.totalRequestCount == 0)
        #expect(loader.liveTransferCount == 0)
    }

    @Test func aRequestModifierCanChangeTheURLAndHeaders() async throws {
        let loader = makeLoader()
        var context = ImageContext()
        let target = server.url("/ok.pgm")
        context.requestModifier = RequestModifierBlock { request in
            var request = request
            request.url = target
            request.headers["X-Signed"] = "yes"
            return request
        }
        _ = try await load(loader, server.url("/not-found"), context: context).get()
        #expect(server.requestCount(for: "/not-found") == 0)
        #expect(server.requestLog.last?.headers["x-signed"] == "yes")
    }

    @Test func credentialsAnswerTheServersChallenge() async throws {
        let loader = makeLoader { $0.credentials = HTTPCredentials(user: "user", password: "secret") }
        let result = try await load(loader, server.url("/auth.pgm")).get()
        #expect(result.data == Data(FaultServer.image))
        let withoutCredentials = makeLoader()
        #expect(failure(await load(withoutCredentials, server.url("/auth.pgm"))) == .invalidStatusCode(401))
    }

    @Test func cookiesAreKeptAndSentOnlyWithHandleCookies() async throws {
        let loader = makeLoader()
        _ = try await load(loader, server.url("/set-cookie.pgm")).get()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        #expect(server.requestLog.last?.headers["cookie"] == nil)

        _ = try await load(loader, server.url("/set-cookie.pgm"), options: [.handleCookies]).get()
        _ = try await load(loader, server.url("/ok.pgm"), options: [.handleCookies]).get()
        #expect(server.requestLog.last?.headers["cookie"] == "session=abc")
        // Requests without the option still send no cookie.
        _ = try await load(loader, server.url("/ok.pgm")).get()
        #expect(server.requestLog.last?.headers["cookie"] == nil)
    }

    @Test func nonHTTPSchemesAreNotRequested() async {
        let loader = makeLoader()
        #expect(!loader.canRequestImage(for: URL(string: "file:///etc/passwd")!))
        #expect(!loader.canRequestImage(for: URL(string: "ftp://example.com/a.png")!))
        #expect(loader.canRequestImage(for: URL(string: "HTTPS://example.com/a.png")!))
        let error = failure(await load(loader, URL(string: "ftp://127.0.0.1/a.png")!))
        guard case .invalidURL = error else {
            Issue.record("expected .invalidURL, got \(String(describing: error))"); return
        }
    }
}

/// Declares WebP without decoding it: enough to change the Accept header.
private struct WebPStandIn: ImageCoder {
    var decodableFormats: [ImageFormat] { [.webp] }
    func canDecode(_ data: Data) -> Bool { false }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image { throw .unsupportedFormat(.webp) }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}
