import Foundation
import LoopbackHTTPServer
import Testing
import WebImage
import WebImageTestSupport

/// The `webimage` command, run as a user runs it: a subprocess with its own cache directory.
@Suite("webimage command", .serialized)
struct CommandTests {
    static let resources = PackagePaths.root.appendingPathComponent("Examples/Resources")
    static let sampleNames = [
        "badge-alpha.png", "baseline.jpg", "corrupt.jpg", "lossless.webp", "lossy.webp",
        "progressive.jpg", "spinner.gif", "spinner.png", "spinner.webp",
    ]

    /// A server for the sample images plus routes that fail.
    static func makeServer() throws -> LoopbackHTTPServer {
        let server = try LoopbackHTTPServer()
        server.route(prefix: "/images/") { request, connection in
            let name = String(request.path.dropFirst("/images/".count))
            guard let body = FileManager.default.contents(atPath: resources.appendingPathComponent(name).path) else {
                try connection.respond(status: 404, headers: [("Content-Type", "text/plain")], body: Array("no".utf8))
                return
            }
            try connection.respond(
                status: 200, headers: [("Content-Type", "application/octet-stream")], body: [UInt8](body))
        }
        return server
    }

    func environment(_ cache: TemporaryDirectory) -> [String: String] { ["XDG_CACHE_HOME": cache.url.path] }

    @Test func demoPrintsTheTablesAndWritesThumbnails() throws {
        let out = try TemporaryDirectory(prefix: "demo-thumbs")
        let cache = try TemporaryDirectory(prefix: "demo-cache")
        let run = try BuiltExecutable.run(
            "webimage", ["demo", "--output", out.url.path], environment: environment(cache))
        #expect(run.status == 0, "\(run.stderr)")
        for phrase in [
            "1. cold", "2. warm", "3. memory cleared", "network", "memory", "disk", "URL", "format", "frames",
        ] {
            #expect(run.stdout.contains(phrase), "missing \(phrase)")
        }
        // Every sample appears in each of the three tables; the corrupt one with its typed error.
        for name in Self.sampleNames {
            #expect(run.stdout.components(separatedBy: "/images/\(name)").count - 1 >= 3, "\(name)")
        }
        #expect(run.stdout.contains("error: bad image data"))
        let spinnerLine = try #require(run.stdout.split(separator: "\n").first { $0.contains("spinner.gif") })
        #expect(spinnerLine.contains("gif") && spinnerLine.contains(" 12 "))
        let apngLine = try #require(run.stdout.split(separator: "\n").first { $0.contains("spinner.png") })
        #expect(apngLine.contains("png") && apngLine.contains(" 12 "))
        // Thumbnails: every decodable sample, each fitting in 256 px.
        let written = try FileManager.default.contentsOfDirectory(atPath: out.url.path).sorted()
        #expect(written.count == Self.sampleNames.count - 1)
        for file in written {
            let data = try Data(contentsOf: out.file(file))
            let image = try PNGCoder().decode(data, options: DecodeOptions())
            #expect(max(image.width, image.height) <= 256 && image.width > 0)
        }
        #expect(run.stdout.contains("wrote \(written.count) thumbnails"))
    }

    @Test func fetchLoadsEveryFormatAndWritesConvertedOutputs() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let out = try TemporaryDirectory(prefix: "fetch-out")
        let cache = try TemporaryDirectory(prefix: "fetch-cache")
        let names = Self.sampleNames.filter { $0 != "corrupt.jpg" }
        let urls = names.map { server.url("/images/\($0)").absoluteString }
        let run = try BuiltExecutable.run(
            "webimage",
            ["fetch"] + urls + [
                "--thumbnail", "64", "--format", "png",
                "--output", out.url.path,
            ],
            environment: environment(cache))
        #expect(run.status == 0, "\(run.stderr)")
        for format in ["png", "jpeg", "webp", "gif"] { #expect(run.stdout.contains(" \(format) ")) }
        let files = try FileManager.default.contentsOfDirectory(atPath: out.url.path)
        #expect(Set(files.map { ($0 as NSString).pathExtension }) == ["png"])
        #expect(
            Set(files.map { ($0 as NSString).deletingPathExtension }).count
                == Set(names.map { ($0 as NSString).deletingPathExtension }).count)
        // A second fetch of one URL is answered by the cache.
        let again = try BuiltExecutable.run(
            "webimage", ["fetch", urls[0], "--thumbnail", "64"], environment: environment(cache))
        #expect(again.status == 0 && (again.stdout.contains("disk") || again.stdout.contains("memory")))
    }

    /// The loader's default, `HTTPProxy.direct`, keeps libcurl from reading proxy variables: a child
    /// process (the environment is only ever changed for it, never in this process) with every proxy
    /// variable naming a server of ours fetches straight from the origin, and that server hears nothing.
    @Test func proxyVariablesAreIgnoredByDefault() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let proxy = try LoopbackHTTPServer()
        defer { proxy.shutdown() }
        let cache = try TemporaryDirectory(prefix: "proxy-cache")
        var environment = environment(cache)
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[name] = "http://127.0.0.1:\(proxy.port)"
        }
        let run = try BuiltExecutable.run(
            "webimage", ["fetch", server.url("/images/baseline.jpg").absoluteString],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.totalRequestCount == 1)
        #expect(proxy.totalRequestCount == 0)
    }

    @Test func badInputGivesOneLineOnStderrAndAFailureStatus() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let cache = try TemporaryDirectory(prefix: "errors-cache")
        let cases = [
            "not a url", "http://127.0.0.1:1/unreachable.png", server.url("/images/corrupt.jpg").absoluteString,
        ]
        for argument in cases {
            let run = try BuiltExecutable.run("webimage", ["fetch", argument], environment: environment(cache))
            #expect(run.status != 0, "\(argument)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(argument): \(run.stderr)")
            #expect(lines.first?.hasPrefix("webimage: ") == true)
            #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Stack"))
        }
    }

    @Test func prefetchOf200URLsCountsFinishedSkippedAndFailed() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let cache = try TemporaryDirectory(prefix: "prefetch-cache")
        var lines: [String] = []
        for i in 0..<180 { lines.append(server.url("/images/badge-alpha.png?copy=\(i)").absoluteString) }
        for i in 0..<15 { lines.append(server.url("/images/missing-\(i).png").absoluteString) }
        for i in 0..<5 { lines.append(server.url("/images/corrupt.jpg?copy=\(i)").absoluteString) }
        let list = try TemporaryDirectory(prefix: "prefetch-list")
        let file = try list.write(Data(lines.joined(separator: "\n").utf8), to: "urls.txt")

        let first = try BuiltExecutable.run("webimage", ["prefetch", file.path], environment: environment(cache))
        #expect(first.stdout.contains("prefetch: 180 finished, 0 skipped, 20 failed"), "\(first.stdout.suffix(400))")
        #expect(first.status != 0)
        #expect(first.stdout.contains("HTTP status 404") && first.stdout.contains("bad image data"))
        // From stdin, a second time: everything that loaded is now skipped as cached.
        let second = try BuiltExecutable.run(
            "webimage", ["prefetch", "-"], environment: environment(cache),
            input: Data(lines.joined(separator: "\n").utf8))
        #expect(second.stdout.contains("prefetch: 0 finished, 180 skipped, 20 failed"), "\(second.stdout.suffix(400))")
    }

    @Test func cacheInfoAndClear() throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let cache = try TemporaryDirectory(prefix: "info-cache")
        _ = try BuiltExecutable.run(
            "webimage", ["fetch", server.url("/images/baseline.jpg").absoluteString],
            environment: environment(cache))
        let info = try BuiltExecutable.run("webimage", ["cache", "info"], environment: environment(cache))
        #expect(info.status == 0)
        #expect(info.stdout.contains(cache.url.path) && info.stdout.contains("entries:   1"))
        let clear = try BuiltExecutable.run("webimage", ["cache", "clear", "--disk"], environment: environment(cache))
        #expect(clear.status == 0)
        let after = try BuiltExecutable.run("webimage", ["cache", "info"], environment: environment(cache))
        #expect(after.stdout.contains("entries:   0"))
    }
}
