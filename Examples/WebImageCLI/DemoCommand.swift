import ArgumentParser
import Foundation
import WebImage

/// The README's first command: a self-contained tour that needs no network beyond loopback.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve the sample images on 127.0.0.1, load them cold, warm and from disk, and write thumbnails."
    )

    @Option(help: "Folder for the 256 px thumbnails (default: a new folder under the temporary directory).")
    var output: String?

    @Option(help: "Thumbnail size in pixels.")
    var thumbnail = 256

    func run() async throws {
        let resources = SampleResources.directory
        let server: SampleServer
        do {
            server = try SampleServer(directory: resources)
        } catch {
            Console.error("cannot serve \(resources.path): \(Console.describe(error))")
            throw ExitCode.failure
        }
        defer { server.server.shutdown() }
        // A fresh cache, so the first pass is really cold and the user's own cache is untouched.
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-demo-cache-\(getpid())")
        let (manager, cache) = try WebImage.makeManager(cacheDirectory: cacheDirectory)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }

        print(
            "SwiftWebImage demo: serving \(server.files.count) images from \(resources.path) at http://127.0.0.1:\(server.server.port)/images/"
        )
        print("cache: \(cacheDirectory.path)\n")

        for (title, prepare) in [
            ("1. cold: every image comes from the network", {}),
            ("2. warm: decoded images come from memory", {}),
            (
                "3. memory cleared: bytes come from disk and are decoded again",
                { await cache.clear(cacheType: .memory) }
            ),
        ] as [(String, () async -> Void)] {
            await prepare()
            var rows: [LoadRow] = []
            for url in server.urls {
                let (result, ms) = await timedLoad(manager, url, options: [.waitStoreCache])
                rows.append(LoadRow(url: url, result: result, milliseconds: ms))
            }
            print(ResultTable.render(rows, title: title))
        }

        let folder =
            output.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("webimage-thumbnails-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(thumbnail)
        var written = 0
        for url in server.urls {
            guard let loaded = try? await manager.image(for: url, context: context) else { continue }
            // "spinner.gif" -> "spinner-gif-256.png": samples that differ only by format stay apart.
            let name = url.lastPathComponent.replacingOccurrences(of: ".", with: "-") + "-\(thumbnail).png"
            let png = try ImageCodersManager.shared.encode(
                loaded.image.firstFrameOnly, as: .png, options: EncodeOptions())
            try png.write(to: folder.appendingPathComponent(name))
            written += 1
        }
        print("wrote \(written) thumbnails (\(thumbnail) px) to \(folder.path)")
        print(
            "look at them with any image viewer, e.g. `xdg-open \(folder.path)`, or in a browser after `python3 -m http.server -d \(folder.path)`"
        )
    }
}
