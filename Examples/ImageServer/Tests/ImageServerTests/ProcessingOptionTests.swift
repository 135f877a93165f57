import Foundation
import Testing
import WebImage
import WebImageTransformers

@testable import ImageServer

/// Every processing option through the server gives exactly what the transformers module's own
/// transformer gives for the same option text (both encoded as lossless PNG), and the sizes follow
/// imgproxy's meaning of the options.
@Suite struct ProcessingOptionTests {
    /// One URL per option name of imgproxy that the parser maps (short and long spellings).
    static let optionTexts = [
        "rs:fit:32:32", "resize:fill:20:30", "s:40:20", "size:40:20:1", "rt:fill/w:30/h:30",
        "resizing_type:fit/width:25",
        "height:25", "rs:fill:30:30/g:no", "rs:fill:30:30/gravity:so", "rs:fit:200:200/el:1",
        "rs:fit:200:200/enlarge:1",
        "rs:fit:80:80/ex:1", "rs:fit:80:80/extend:1:ce", "c:20:20", "crop:20:20:ea", "t:10", "trim:10:FFFFFF",
        "rot:90", "rotate:180", "bl:2", "blur:1.5", "sh:1", "sharpen:0.5", "bg:ff0000", "background:255:0:0",
        "pd:4", "padding:1:2:3:4", "rs:fit:20:20/dpr:2", "q:50", "f:png",
    ]

    @Test(arguments: optionTexts)
    func serverMatchesTheTransformer(_ text: String) async throws {
        let servers = try await TestServers.start()
        let reply = try await HTTPClient.get(
            servers.baseURL
                + servers.encodedPath(options: text, source: servers.sourceURL("/alpha.png"), extension: "png"))
        #expect(reply.status == 200, "\(text): \(String(decoding: reply.body, as: UTF8.self))")
        if reply.status == 200 {
            let served = try Fixtures.decode(reply.body)
            let source = try Fixtures.decode(Fixtures.encoded(Fixtures.alphaPixels(), as: .png))
            let options = try ProcessingOptions(parsing: text)
            let expected = try options.transformer(watermarkImage: nil)?.transform(source, forKey: "") ?? source
            let roundTrip = try Fixtures.decode(
                ImageCodersManager.shared.encode(expected, as: .png, options: EncodeOptions()))
            #expect(served.width == roundTrip.width && served.height == roundTrip.height, "\(text)")
            #expect(served.pixels.bytes == roundTrip.pixels.bytes, "\(text)")
        }
        try await servers.stop()
    }

    @Test func sizesFollowImgproxy() async throws {
        let servers = try await TestServers.start()
        func size(_ options: String) async throws -> (Int, Int) {
            try await servers.answeredSize(
                servers.encodedPath(options: options, source: servers.sourceURL("/photo.jpg"), extension: "png"))
        }
        // The photo is 64x48.
        #expect(try await size("rs:fit:32:32") == (32, 24))
        #expect(try await size("rs:fill:20:20") == (20, 20))
        #expect(try await size("rs:fit:640:640") == (64, 48))  // no enlarging without el
        #expect(try await size("rs:fit:128:128/el:1") == (128, 96))
        #expect(try await size("rot:90") == (48, 64))
        #expect(try await size("pd:5") == (74, 58))
        #expect(try await size("rs:fit:16:16/dpr:2") == (32, 24))
        #expect(try await size("rs:fit:100:100/ex:1") == (100, 100))
        try await servers.stop()
    }

    @Test func formatAndQualityOptionsPickTheEncoding() async throws {
        let servers = try await TestServers.start()
        let webp = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(options: "f:webp", source: servers.sourceURL("/photo.jpg")),
            headers: ["Accept": "image/png"])
        #expect(webp.header("Content-Type") == "image/webp")
        #expect(webp.header("Vary") == nil)
        let low = try await HTTPClient.get(
            servers.baseURL
                + servers.encodedPath(options: "q:10", source: servers.sourceURL("/photo.jpg"), extension: "jpg"))
        let high = try await HTTPClient.get(
            servers.baseURL
                + servers.encodedPath(options: "q:95", source: servers.sourceURL("/photo.jpg"), extension: "jpg"))
        #expect(low.body.count < high.body.count)
        let bad = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(options: "rs:nonsense:x", source: servers.sourceURL("/photo.jpg")))
        #expect(bad.status == 404)  // imgproxy: options it cannot read make an invalid URL
        try await servers.stop()
    }

    @Test func watermarkFromTheConfiguredFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-server-mark-\(UUID()).png")
        try Fixtures.encoded(Fixtures.alphaPixels(), as: .png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let servers = try await TestServers.start { configuration in configuration.watermarkPath = file.path }
        let plain = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/photo.jpg"), extension: "png"))
        let marked = try await HTTPClient.get(
            servers.baseURL
                + servers.encodedPath(options: "wm:1:ce", source: servers.sourceURL("/photo.jpg"), extension: "png"))
        #expect(marked.status == 200)
        let (a, b) = (try Fixtures.decode(plain.body), try Fixtures.decode(marked.body))
        #expect(a.width == b.width && a.height == b.height)
        #expect(a.pixels.bytes != b.pixels.bytes)
        try await servers.stop()
    }

    @Test func fitsDecodeStraightIntoTheBox() async throws {
        let servers = try await TestServers.start()
        let reply = try await HTTPClient.get(
            servers.baseURL
                + servers.encodedPath(
                    options: "rs:fit:16:16/dpr:2", source: servers.sourceURL("/photo.jpg"), extension: "png"))
        #expect(reply.status == 200)
        let key = SourceFetcher.decodedKey(
            URL(string: servers.sourceURL("/photo.jpg"))!, SourceDecoding(box: PixelSize(32)))
        let decoded = servers.server.service.fetcher.decodedSources.image(forKey: key)
        #expect(decoded?.width == 32 && decoded?.height == 24)
        // A crop needs the full image first: no decode box.
        #expect(try ProcessingPlan(segments: ["c:10:10", "rs:fit:16:16"]).decodeBox == nil)
        #expect(try ProcessingPlan(segments: ["rs:fill:16:16"]).decodeBox == nil)
        // Zoom and minimum sizes scale past the box: no decode box either.
        #expect(try ProcessingPlan(segments: ["rs:fit:16:16", "z:2"]).decodeBox == nil)
        #expect(try ProcessingPlan(segments: ["rs:fit:16:16", "mw:40"]).decodeBox == nil)
        try await servers.stop()
    }

    @Test func thePlansTransformerStopsOnceTheRequestIsCancelled() throws {
        let plan = try ProcessingPlan(segments: ["rs:fit:16:16", "bl:2"])
        let image = Image(pixels: Fixtures.photoPixels())
        let running = try #require(try plan.makeTransformer(nil, { false }) as? ProcessingTransformer)
        #expect(try running.transformed(image).width == 16)
        let cancelled = try #require(try plan.makeTransformer(nil, { true }) as? ProcessingTransformer)
        #expect(throws: ImageError.cancelled) { try cancelled.transformed(image) }
    }
}
