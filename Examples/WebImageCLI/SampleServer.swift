import Foundation
import LoopbackHTTPServer
import WebImage

/// Serves the files of a directory at `/images/NAME` on 127.0.0.1, with image content types.
struct SampleServer {
    let server: LoopbackHTTPServer
    let files: [String]

    init(directory: URL) throws {
        server = try LoopbackHTTPServer()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        files = names
        server.route(prefix: "/images/") { request, connection in
            let name = String(request.path.dropFirst("/images/".count))
            guard names.contains(name),
                let body = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else {
                try connection.respond(
                    status: 404, headers: [("Content-Type", "text/plain")], body: Array("not found".utf8))
                return
            }
            let format = ImageFormat.fromFileExtension((name as NSString).pathExtension)
            try connection.respond(
                status: 200, headers: [("Content-Type", format.mimeType ?? "application/octet-stream")],
                body: [UInt8](body))
        }
    }

    /// The URL of every served file.
    var urls: [URL] { files.map { server.url("/images/\($0)") } }
}

/// Where `Examples/Resources` is: next to this source tree, or `WEBIMAGE_RESOURCES`.
enum SampleResources {
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["WEBIMAGE_RESOURCES"] {
            return URL(fileURLWithPath: override)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources")
    }
}
