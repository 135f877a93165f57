import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageTestSupport

/// AVIF, HEIC and JPEG XL fetched over HTTP from a loopback server that negotiates on the Accept header, decoded
/// by the coders the `WebImage` module registers.
@Suite("AVIF, HEIF and JPEG XL over HTTP")
struct AVIFHEIFJXLFlowTests {
    @Test("the Accept header offers AVIF first, and HEIC/HEIF and JPEG XL")
    func acceptHeader() {
        let accept = WebImage.httpLoader.acceptHeader
        #expect(accept.hasPrefix("image/avif,"))
        #expect(accept.contains("image/heic") && accept.contains("image/heif") && accept.contains("image/jxl"))
    }

    @Test(
        "a server that sends AVIF, HEIC or JPEG XL only to clients that accept it; each decodes",
        arguments: ["avif", "heic", "jxl"])
    func negotiated(format: String) async throws {
        let source = SyntheticPicture.make(width: 120, height: 80, layout: .rgba8)
        let (coder, imageFormat): (any ImageCoder, ImageFormat) =
            switch format {
            case "avif": (AVIFCoder(speed: 10), .avif)
            case "heic": (HEIFCoder(x265Preset: "ultrafast"), .heic)
            default: (JXLCoder(effort: 3), .jpegXL)
            }
        let body = try coder.encode(Image(pixels: source), as: imageFormat, options: EncodeOptions(quality: 0.8))
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
        #expect(loaded.image.format == imageFormat)
        #expect(loaded.image.width == 120 && loaded.image.height == 80)
        let direct = try coder.decode(body, options: DecodeOptions())
        #expect(loaded.image.pixels == direct.pixels)
        #expect(SyntheticPicture.meanDifference(loaded.image.pixels, source) < 4)
    }
}
