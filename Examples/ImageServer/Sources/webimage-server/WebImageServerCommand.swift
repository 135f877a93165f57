import ArgumentParser
import Foundation
import ImageServer
import Logging

/// `webimage-server [--config FILE] [--demo [--samples DIR]]`
///
/// Configuration comes from imgproxy's environment variables (`IMGPROXY_BIND`, `IMGPROXY_KEY`, ...), laid
/// over the `NAME=VALUE` lines of `--config FILE` when given. `--demo` starts an origin on loopback holding
/// the sample images (Examples/Resources, or `--samples DIR`), lets the server fetch from loopback, and
/// serves `/demo`, a page of signed URLs over them.
@main
struct WebImageServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage-server",
        abstract: "An imgproxy-compatible image server on SwiftWebImage.",
        discussion: "Settings come from imgproxy's environment variables (IMGPROXY_BIND, IMGPROXY_KEY, ...); "
            + "see Examples/ImageServer/README.md. LOG_LEVEL (or IMGPROXY_LOG_LEVEL) sets the log level (info by default)."
    )

    @Option(name: .long, help: "A file of NAME=VALUE lines, under the environment's variables.")
    var config: String?

    @Flag(name: .long, help: "Serve /demo over an origin of sample images on loopback.")
    var demo = false

    @Option(name: .long, help: "The demo's sample images (default: the repository's Examples/Resources).")
    var samples: String?

    /// The repository's sample images, found from this file's place in the checkout.
    static let defaultSamplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Resources").standardizedFileURL

    /// Bytes of the demo's one-run key and salt: as long as the HMAC's output, what imgproxy's docs suggest.
    static let demoKeyByteCount = 32

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ServerConfiguration.logLevel(environment: ProcessInfo.processInfo.environment)
            return handler
        }
        let logger = Logger(label: "webimage-server")
        let environment = ProcessInfo.processInfo.environment
        var configuration =
            try config.map { try ServerConfiguration(file: URL(fileURLWithPath: $0), environment: environment) }
            ?? ServerConfiguration(environment: environment)
        var origin: Task<Void, any Error>?
        if demo {
            let directory = samples.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? Self.defaultSamplesDirectory
            let (files, samples) = try StaticSourceServer.samples(in: directory)
            let sources = try await DemoSources.start(files: files)
            origin = sources.task
            configuration.allowsLoopbackSources = true
            if configuration.signingKeys.isEmpty {
                // The demo page shows signed URLs: a key and salt for this run only.
                configuration.signingKeys = [
                    URLSigner.KeyPair(
                        key: Self.randomBytes(Self.demoKeyByteCount),
                        salt: Self.randomBytes(Self.demoKeyByteCount))
                ]
            }
            configuration.demo = DemoConfiguration(sourceBaseURL: sources.baseURL, samples: samples)
            logger.info("demo sources", metadata: ["url": "\(sources.baseURL)", "samples": "\(samples.count)"])
        }
        let server = try ImageServer(configuration: configuration, logger: logger)
        server.bootstrapMetricsSystem()
        defer { origin?.cancel() }
        let (host, isDemo) = (configuration.host, demo)
        try await server.run { port in
            logger.info("listening", metadata: ["address": "http://\(host):\(port)/"])
            if isDemo { logger.info("demo page", metadata: ["url": "http://\(host):\(port)/demo"]) }
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
