import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageHTTPLoader

/// Compressed bodies: what Accept-Encoding offers, gzip and deflate decoded before anyone sees the
/// bytes, the size limit on decoded bytes, and the decompression-ratio cap against bombs.
@Suite(.timeLimit(.minutes(2)))
struct ContentDecodingTests {
    let server: LoopbackHTTPServer
    /// A larger, varied image so that compression and chunking have something to work on.
    static let image = [UInt8](PGMCoder.sample(width: 256, height: 256))
    /// 1 GB of zeros as gzip (about 1 MB), built once.
    static let bomb = GzipZeroBomb(megabytes: 1024)

    init() throws {
        server = try FaultServer.make()
        let image = Self.image
        let headers = FaultServer.imageHeaders
        server.route("/gzip.pgm") { _, connection in
            try connection.respond(
                headers: headers + [("Content-Encoding", "gzip")], body: Deflater.compressed(image, gzip: true))
        }
        server.route("/deflate.pgm") { _, connection in
            try connection.respond(
                headers: headers + [("Content-Encoding", "deflate")], body: Deflater.compressed(image, gzip: false))
        }
        // gzip sent chunked, one flushed piece per chunk.
        server.route("/gzip-chunked.pgm") { _, connection in
            try connection.writeHead(
                status: 200, headers: headers + [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])
            let deflater = Deflater(gzip: true)
            let piece = image.count / 4 + 1
            for start in stride(from: 0, to: image.count, by: piece) {
                try connection.writeChunk(deflater.compress(Array(image[start..<min(image.count, start + piece)])))
            }
            try connection.writeChunk(deflater.compress([], finish: true))
            try connection.writeChunk([])
        }
        // A compressed transfer coding rather than a content coding.
        server.route("/transfer-gzip.pgm") { _, connection in
            try connection.writeHead(status: 200, headers: headers + [("Transfer-Encoding", "gzip, chunked")])
            try connection.writeChunk(Deflater.compressed(image, gzip: true))
            try connection.writeChunk([])
        }
        // 512 KB of zeros: a ratio near 1000, but small enough to be harmless.
        server.route("/small-zeros") { _, connection in
            let body = Deflater(gzip: true).compressZeros(512 * 1024, finish: true)
            try connection.respond(headers: headers + [("Content-Encoding", "gzip")], body: body)
        }
        // 1 GB of zeros as gzip, delimited by the connection close (libcurl counts received bytes as they come).
        server.route("/bomb") { _, connection in
            connection.closeAfterResponse = true
            try connection.writeHead(
                status: 200, headers: headers + [("Content-Encoding", "gzip"), ("Connection", "close")])
            try Self.sendBomb { try connection.write($0) }
        }
        // The same bomb chunked (libcurl counts received bytes once per read).
        server.route("/bomb-chunked") { _, connection in
            try connection.writeHead(
                status: 200, headers: headers + [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])
            try Self.sendBomb { try connection.writeChunk($0) }
            try connection.writeChunk([])
        }
        // Says gzip, sends something else.
        server.route("/bad-gzip") { _, connection in
            try connection.respond(
                headers: headers + [("Content-Encoding", "gzip")], body: Array(repeating: 0x41, count: 100))
        }
        // The bomb as a compressed transfer coding.
        server.route("/transfer-bomb") { _, connection in
            try connection.writeHead(status: 200, headers: headers + [("Transfer-Encoding", "gzip, chunked")])
            try Self.sendBomb { try connection.writeChunk($0) }
            try connection.writeChunk([])
        }
    }

    private static func sendBomb(_ send: ([UInt8]) throws -> Void) throws {
        try send(bomb.head)
        for _ in 0..<bomb.repeats { try send(bomb.piece) }
        try send(bomb.tail)
    }

    @Test func acceptEncodingOffersWhatThisLibcurlDecodes() async throws {
        _ = try await load(makeLoader(), server.url("/ok.pgm")).get()
        let offered = try #require(server.requestLog.last?.headers["accept-encoding"])
        let names = Set(offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(names == Set(HTTPContentDecoding.supportedEncodings))
        #expect(names.isSuperset(of: ["gzip", "deflate"]))
    }

    @Test func turningDecodingOffSendsIdentityAndKeepsTheBytes() async throws {
        let loader = makeLoader { $0.contentDecoding.isEnabled = false }
        let data = try await load(loader, server.url("/gzip.pgm")).get().data
        #expect(server.requestLog.last?.headers["accept-encoding"] == "identity")
        #expect(data.starts(with: [0x1F, 0x8B]), "the gzip stream itself")
    }

    @Test(arguments: ["/gzip.pgm", "/deflate.pgm", "/gzip-chunked.pgm"])
    func compressedBodiesAreDecoded(path: String) async throws {
        let loaded = try await load(makeLoader(), server.url(path)).get()
        #expect(loaded.data == Data(Self.image))
        #expect(loaded.response?.headers["content-encoding"] != nil)
    }

    @Test func aCompressedTransferCodingIsDecodedWhenRequested() async throws {
        let loader = makeLoader { $0.contentDecoding.requestsCompressedTransfer = true }
        #expect(try await load(loader, server.url("/transfer-gzip.pgm")).get().data == Data(Self.image))
        #expect(server.requestLog.last?.headers["te"]?.contains("gzip") == true)
    }

    @Test func progressOfACompressedBodyCountsDecodedBytesWithoutAnExpectedTotal() async throws {
        let last = Locked<LoadProgress?>(nil)
        let result = await load(
            makeLoader(), server.url("/gzip.pgm"),
            progress: { progress in
                last.withLock { $0 = progress }
            })
        #expect(try result.get().data == Data(Self.image))
        let final = try #require(last.withLock { $0 })
        #expect(final.expectedBytes == nil, "Content-Length counts compressed bytes")
        #expect(final.receivedBytes <= Int64(Self.image.count))
    }

    @Test func aBodyThatDoesNotDecodeIsBadData() async {
        let error = failure(await load(makeLoader(), server.url("/bad-gzip")))
        guard case .badImageData = error else {
            Issue.record("expected .badImageData, got \(String(describing: error))"); return
        }
    }

    @Test func theSizeLimitCountsDecodedBytes() async throws {
        let compressed = Deflater.compressed(Self.image, gzip: true)
        let limit = (compressed.count + Self.image.count) / 2
        #expect(compressed.count < limit && limit < Self.image.count)
        let loader = makeLoader { $0.maxResponseSize = limit }
        #expect(failure(await load(loader, server.url("/gzip.pgm"))) == .responseTooLarge(limit: limit))
        let roomy = makeLoader { $0.maxResponseSize = Self.image.count }
        #expect(try await load(roomy, server.url("/gzip.pgm")).get().data == Data(Self.image))
    }

    @Test func aSmallBodyIsNotJudgedByItsRatio() async throws {
        #expect(try await load(makeLoader(), server.url("/small-zeros")).get().data.count == 512 * 1024)
    }

    @Test(arguments: ["/bomb", "/bomb-chunked"])
    func aGzipBombStopsAtTheRatioCap(path: String) async throws {
        let loader = makeLoader()
        let (result, metrics) = await loadWithMetrics(loader, server.url(path))
        #expect(failure(result)?.httpLoaderFailure == .decompressionRatioExceeded(limit: 100))
        // Decoded bytes kept when it stopped: at most 100x what was received plus one read (256 KB)
        // and a callback's output, far below the 64 MB size limit and the 1 GB of the bomb.
        let kept = try #require(metrics?.bytesReceived)
        let bound: Int64 = 28 << 20
        #expect(kept <= bound, "kept \(kept) decoded bytes")
    }

    @Test func aCompressedTransferCodingBombStopsAtTheRatioCap() async throws {
        let loader = makeLoader { $0.contentDecoding.requestsCompressedTransfer = true }
        let (result, metrics) = await loadWithMetrics(loader, server.url("/transfer-bomb"))
        #expect(failure(result)?.httpLoaderFailure == .decompressionRatioExceeded(limit: 100))
        #expect(try #require(metrics?.bytesReceived) <= 28 << 20)
    }

    @Test func withoutTheRatioCapTheSizeLimitStillStopsABomb() async throws {
        let loader = makeLoader {
            $0.contentDecoding.maxDecompressionRatio = nil
            $0.maxResponseSize = 8 << 20
        }
        #expect(failure(await load(loader, server.url("/bomb"))) == .responseTooLarge(limit: 8 << 20))
    }
}
