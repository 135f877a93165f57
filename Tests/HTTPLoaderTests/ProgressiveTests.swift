import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

/// With `.progressiveLoad`, registered progressive coders turn arriving bytes into partial images.
@Suite(.timeLimit(.minutes(1)))
struct ProgressiveTests {
    let server: LoopbackHTTPServer
    let gate = Gate()
    static let width = 32
    static let height = 32

    init() throws {
        server = try LoopbackHTTPServer()
        // Half the rows, then wait for the test to open the gate, then the rest: the last byte is
        // provably sent only after the client reacted to the first half.
        server.route("/progressive.pgm") { [gate] _, connection in
            let file = [UInt8](PGMCoder.sample(width: Self.width, height: Self.height))
            try connection.writeHead(
                status: 200, headers: FaultServer.imageHeaders + [("Content-Length", "\(file.count)")])
            let half = file.count - Self.width * Self.height / 2
            try connection.write(Array(file[..<half]))
            gate.pass()
            try connection.write(Array(file[half...]))
        }
    }

    @Test func partialImagesArriveBeforeTheLastByte() async throws {
        let loader = makeLoader()
        let partials = Locked<[Image]>([])
        let result = try await load(
            loader, server.url("/progressive.pgm"), options: [.progressiveLoad],
            progress: { [gate] progress in
                guard let image = progress.partialImage else { return }
                let first = partials.withLock { list in
                    list.append(image)
                    return list.count == 1
                }
                if first { gate.open() }
            }
        ).get()
        let seen = partials.withLock { $0 }
        let first = try #require(seen.first)
        #expect(first.isIncomplete)
        #expect(first.width == Self.width && first.height == Self.height)
        // The first rows are decoded, the last row not yet.
        #expect(first.pixels.rgba(x: 1, y: 0).r == 7)
        #expect(first.pixels.rgba(x: Self.width - 1, y: Self.height - 1).r == 0)
        #expect(result.data == PGMCoder.sample(width: Self.width, height: Self.height))
    }

    @Test func withoutProgressiveLoadNoPartialImageIsMade() async throws {
        gate.open()
        let loader = makeLoader()
        let sawPartial = Locked(false)
        _ = try await load(
            loader, server.url("/progressive.pgm"),
            progress: { progress in
                if progress.partialImage != nil { sawPartial.withLock { $0 = true } }
            }
        ).get()
        #expect(sawPartial.withLock { $0 } == false)
    }
}
