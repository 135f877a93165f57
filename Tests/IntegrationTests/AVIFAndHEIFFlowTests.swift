import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageTestSupport

/// AVIF and HEIC fetched over HTTP from a loopback server that negotiates on the Accept header, decoded
/// by the coders the `WebImage` module registers.
@Suite("AVIF and HEIF over HTTP")
struct AVIFAndHEIFFlowTests {
    init() { _ = isolatedSharedCache }

    @Test("the Accept header offers AVIF first, and HEIC/HEIF")
    func acceptHeader() {
        let accept = WebImage.httpLoader.acceptHeader
        #expect(accept.hasPrefix("image/avif,"))
        #expect(accept.contains("image/heic") && accept.contains("image/heif"))
    }

    @Test("a server that sends AVIF or HEIC only to clients that accept it; both decode", arguments: ["avif", "heic"])
    func negotiated(format: String) async throws {
        let source = SyntheticPicture.make(width: 120, height: 80, layout: .rgba8)
        let body: Data = format == "avif"
            ? try AVIFCoder(speed: 10).encode(Image(pixels: source), as: .avif, options: EncodeOptions(quality: 0.8))
            : try HEIFCoder(x265Preset: "ultrafast").encode(Image(pixels: source), as: .heic, options: EncodeOptions(quality: 0.8))
        let mime = "image/\(format)"
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.route("/photo") { request, connection in
            if request.headers["accept"]?.contains(mime) == true {
                try connection.respond(status: 200, headers: [("Content-Type", mime)], body: [UInt8](body))
            } else {
                try connection.respond(status: 406)
            }
        }
        let directory = try TemporaryDirectory(prefix: "avif-heif-flow")
        let (manager, _) = try WebImage.makeManager(cacheDirectory: directory.url)
        let loaded = try await manager.image(for: server.url("/photo"))
        #expect(loaded.image.format == (format == "avif" ? .avif : .heic))
        #expect(loaded.image.width == 120 && loaded.image.height == 80)
        let direct = format == "avif" ? try AVIFCoder().decode(body, options: DecodeOptions())
            : try HEIFCoder().decode(body, options: DecodeOptions())
        #expect(loaded.image.pixels == direct.pixels)
        #expect(SyntheticPicture.meanDifference(loaded.image.pixels, source) < 4)
    }
}
