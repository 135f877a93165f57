import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImage
import WebImageCore
import WebImageTestSupport

/// The whole flow with real parts: libcurl over loopback, the C-library coders, memory + disk cache.
/// Managers under test get a temporary cache directory each. The shared manager (`WebImage.shared`, set
/// up on first use by any suite) keeps its cache under `$XDG_CACHE_HOME` (else `~/.cache`): the place to
/// point it at a temporary directory is the environment the test process starts with, never a test, which
/// would change the environment while other threads read it.
@Suite("Whole flow")
struct WholeFlowTests {
    static let resources = PackagePaths.root.appendingPathComponent("Examples/Resources")

    @Test func downloadDecodeCacheRevalidateAndThumbnail() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let body = try [UInt8](Data(contentsOf: Self.resources.appendingPathComponent("baseline.jpg")))
        server.route("/photo.jpg") { request, connection in
            if request.headers["if-none-match"] == "\"v1\"" {
                try connection.respond(status: 304, headers: [("ETag", "\"v1\"")])
            } else {
                try connection.respond(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("ETag", "\"v1\"")], body: body)
            }
        }
        let directory = try TemporaryDirectory(prefix: "whole-flow")
        let (manager, cache) = try WebImage.makeManager(cacheDirectory: directory.url)
        let url = server.url("/photo.jpg")

        let cold = try await manager.image(for: url, options: [.waitStoreCache])
        #expect(cold.cacheType == .none && cold.image.format == .jpeg && cold.image.width == 480)
        await cache.clear(cacheType: .memory)
        let fromDisk = try await manager.image(for: url)
        #expect(fromDisk.cacheType == .disk && fromDisk.image.pixels == cold.image.pixels)

        // refreshCached: the cached answer, then a conditional request that the server answers with 304.
        let answers = Locked<[ImageLoadResult]>([])
        let final: ImageLoadResult = try await withCheckedThrowingContinuation { continuation in
            manager.loadImage(with: url, options: [.refreshCached]) { result in
                switch result {
                case .success(let answer):
                    answers.withLock { $0.append(answer) }
                    if answer.isFinal { continuation.resume(returning: answer) }
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        }
        #expect(answers.withLock { $0.count } == 2)
        #expect(final.cacheType != .none)
        #expect(server.requestCount(for: "/photo.jpg") == 2)

        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(100)
        let thumbnail = try await manager.image(for: url, context: context)
        #expect(thumbnail.image.width == 100 && thumbnail.image.height == 67)
    }

    @Test func oneLineLoadAndGlobalRegistration() async throws {
        let image = try await WebImage.image(for: Self.resources.appendingPathComponent("badge-alpha.png"))
        #expect(image.format == .png && image.pixels.layout == .rgba8 && image.width == 160)

        WebImage.register(coder: GrayTextCoder())
        let directory = try TemporaryDirectory(prefix: "umbrella")
        let file = try directory.write(Data("GRAY 3 2 9".utf8), to: "tiny.gray")
        let custom = try await WebImage.image(for: file)
        #expect(custom.width == 3 && custom.height == 2 && custom.pixels.bytes == [9, 9, 9, 9, 9, 9])
    }
}

/// "GRAY W H V": a W x H gray image of value V; registered globally by a test.
struct GrayTextCoder: ImageCoder {
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("GRAY ".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ").dropFirst().compactMap { Int($0) }
        guard parts.count == 3, parts[2] < 256 else { throw .badImageData(reason: "bad GRAY header") }
        try options.checkDimensions(width: parts[0], height: parts[1])
        return Image(
            pixels: PixelBuffer(
                width: parts[0], height: parts[1], layout: .gray8,
                bytes: [UInt8](repeating: UInt8(parts[2]), count: parts[0] * parts[1])))
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}
