import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebImage

/// A small origin on loopback that serves files from memory: the demo's sample sources, and the tests'
/// origin (a file may answer after a delay, or when a test lets it, to hold the server's workers busy).
public struct StaticSourceServer: Sendable {
    /// One file: its bytes, `Content-Type`, and what it waits for before answering.
    public struct File: Sendable {
        public var data: Data
        public var contentType: String
        /// A fixed wait before answering.
        public var delay: Duration?
        /// Awaited before answering (after `delay`): lets a test hold a request at the origin for exactly
        /// as long as it needs, however slow the machine.
        public var release: (@Sendable () async -> Void)?
        /// When set, the answer is a 302 redirect to this URL (absolute, or a path on this server).
        public var location: String?
        /// The answer's status (200 by default); a test origin's error answers.
        public var status = 200
        /// More answer headers (`Last-Modified`, `Cache-Control`, ...).
        public var headers: [(String, String)] = []

        public init(
            data: Data, contentType: String, delay: Duration? = nil,
            release: (@Sendable () async -> Void)? = nil, location: String? = nil
        ) {
            self.data = data
            self.contentType = contentType
            self.delay = delay
            self.release = release
            self.location = location
        }

        /// An answer with `status` and a short text body.
        public static func failing(with status: Int) -> File {
            var file = File(data: Data("status \(status)\n".utf8), contentType: "text/plain")
            file.status = status
            return file
        }

        /// A redirect to `location`.
        public static func redirect(to location: String) -> File {
            File(data: Data(), contentType: "text/plain", location: location)
        }
    }

    /// Files by path (`/photo.jpg`).
    public var files: [String: File]
    public var host: String
    public var port: Int

    public init(files: [String: File], host: String = "127.0.0.1", port: Int = 0) {
        self.files = files
        self.host = host
        self.port = port
    }

    /// The Hummingbird application serving the files; `onServerRunning` gets the bound port.
    public func application(
        logger: Logger = Logger(label: "webimage-sources"),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    )
        -> Application<CallbackResponder<BasicRequestContext>>
    {
        let files = self.files
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard let file = files[request.uri.path] else {
                return Response(status: .notFound, body: ResponseBody(byteBuffer: ByteBuffer(string: "not found\n")))
            }
            if let delay = file.delay { try await Task.sleep(for: delay) }
            if let release = file.release { await release() }
            if let location = file.location {
                return Response(status: .found, headers: [.location: location], body: ResponseBody())
            }
            var fields: HTTPFields = [.contentType: file.contentType]
            for (name, value) in file.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            return Response(
                status: HTTPResponse.Status(code: file.status), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.data)))
        }
        return Application(
            responder: responder,
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port),
                serverName: "webimage-sources"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The image files of `directory` (by extension), each with its pixel size and animation, read by
    /// the registered coders; files that do not decode are left out.
    public static func samples(in directory: URL) throws -> (files: [String: File], samples: [DemoSample]) {
        WebImage.registerBuiltInCoders()
        var files: [String: File] = [:]
        var samples: [DemoSample] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        for name in names {
            let format = ImageFormat.fromFileExtension((name as NSString).pathExtension)
            guard format != .undefined, let mimeType = format.mimeType else { continue }
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            guard let image = try? ImageCodersManager.shared.decode(data, options: DecodeOptions()) else { continue }
            files["/" + name] = File(data: data, contentType: mimeType)
            samples.append(
                DemoSample(fileName: name, width: image.width, height: image.height, isAnimated: image.isAnimated))
        }
        return (files, samples)
    }
}
