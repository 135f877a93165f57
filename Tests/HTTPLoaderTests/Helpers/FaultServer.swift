import Foundation
import LoopbackHTTPServer

/// A loopback server with one route per fault the loader must survive.
enum FaultServer {
    static let image = [UInt8](PGMCoder.sample())
    static let imageHeaders = [("Content-Type", "image/x-portable-graymap")]

    static func make() throws -> LoopbackHTTPServer {
        let server = try LoopbackHTTPServer()
        server.route("/ok.pgm") { _, connection in
            try connection.respond(headers: imageHeaders, body: image)
        }
        // Declares 1,000 bytes, then sends one every 200 ms: far below any sane low-speed limit.
        server.route(prefix: "/drip") { _, connection in
            try connection.writeHead(status: 200, headers: imageHeaders + [("Content-Length", "1000")])
            for _ in 0..<1000 {
                try connection.write([0x50])
                try connection.pause(for: .milliseconds(200))
            }
        }
        // Sends the head and a few bytes, then nothing, holding the connection open.
        server.route(prefix: "/stall") { _, connection in
            try connection.writeHead(status: 200, headers: imageHeaders + [("Content-Length", "1000")])
            try connection.write(Array(image.prefix(10)))
            connection.stallUntilClientCloses()
            connection.closeAfterResponse = true
        }
        // Half the declared body, then the connection closes.
        server.route("/truncated") { _, connection in
            try connection.writeHead(status: 200, headers: imageHeaders + [("Content-Length", "\(image.count)")])
            try connection.write(Array(image.prefix(image.count / 2)))
            connection.closeAfterResponse = true
        }
        // A Content-Length far beyond what is sent: the body ends early at the close.
        server.route("/wrong-length") { _, connection in
            try connection.writeHead(status: 200, headers: imageHeaders + [("Content-Length", "\(image.count * 10)")])
            try connection.write(image)
            connection.closeAfterResponse = true
        }
        // Chunked, no length, never ends.
        server.route("/endless") { _, connection in
            try connection.writeHead(status: 200, headers: imageHeaders + [("Transfer-Encoding", "chunked")])
            let chunk = [UInt8](repeating: 0x41, count: 16 * 1024)
            while true { try connection.writeChunk(chunk) }
        }
        server.route("/not-found") { _, connection in
            try connection.respond(status: 404, headers: [("Content-Type", "text/plain")], body: Array("no".utf8))
        }
        server.route("/server-error") { _, connection in
            try connection.respond(status: 500, headers: [("Content-Type", "text/plain")], body: Array("boom".utf8))
        }
        // 304 when the client's If-None-Match matches the current ETag, else the image with that ETag.
        server.route("/etag.pgm") { request, connection in
            let etag = "\"v1\""
            if request.headers["if-none-match"] == etag {
                try connection.respond(status: 304, headers: [("ETag", etag)])
            } else {
                try connection.respond(
                    headers: imageHeaders + [("ETag", etag), ("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT")],
                    body: image)
            }
        }
        // A bare 304 nobody asked for.
        server.route("/unasked-304") { _, connection in
            try connection.respond(status: 304)
        }
        // /chain/N redirects to /chain/N-1; /chain/0 is the image.
        server.route(prefix: "/chain/") { request, connection in
            let hops = Int(request.path.dropFirst("/chain/".count)) ?? 0
            if hops == 0 {
                try connection.respond(headers: imageHeaders, body: image)
            } else {
                try connection.respond(status: 302, headers: [("Location", "/chain/\(hops - 1)")])
            }
        }
        server.route("/loop") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "/loop")])
        }
        server.route("/to-file") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "file:///etc/passwd")])
        }
        server.route("/page.html") { _, connection in
            try connection.respond(headers: [("Content-Type", "text/html")], body: Array("<html></html>".utf8))
        }
        // 200 header lines of 1 KB each: a head of 200 KB.
        server.route("/huge-headers") { _, connection in
            let filler = String(repeating: "x", count: 1024)
            let headers = (0..<200).map { ("X-Filler-\($0)", filler) }
            try connection.respond(headers: imageHeaders + headers, body: image)
        }
        // Not HTTP at all: a line of text and a blank line, then the connection closes.
        server.route("/garbage") { _, connection in
            try connection.write("hello, this is not HTTP\r\n\r\n")
            connection.closeAfterResponse = true
        }
        // One header line of 1 MB: over libcurl's own per-line cap, never reaching our callback.
        server.route("/huge-header-line") { _, connection in
            try connection.writeHead(
                status: 200, headers: imageHeaders + [("X-Filler", String(repeating: "x", count: 1 << 20))])
            connection.closeAfterResponse = true
        }
        // Declares 10 GB, then sends nothing and keeps the connection open.
        server.route("/huge-declared") { _, connection in
            try connection.writeHead(
                status: 200, headers: imageHeaders + [("Content-Length", "\(10 * 1024 * 1024 * 1024)")])
            connection.stallUntilClientCloses()
            connection.closeAfterResponse = true
        }
        // Accepts the request and never answers.
        server.route(prefix: "/silent") { _, connection in
            connection.stallUntilClientCloses()
            connection.closeAfterResponse = true
        }
        return server
    }
}
