import Foundation
import ImageServer
import Logging

/// `webimage-server [--config FILE] [--demo [--samples DIR]]`
///
/// Configuration comes from imgproxy's environment variables (`IMGPROXY_BIND`, `IMGPROXY_KEY`, ...), laid
/// over the `NAME=VALUE` lines of `--config FILE` when given. `--demo` starts an origin on loopback holding
/// the sample images (Examples/Resources, or `--samples DIR`), lets the server fetch from loopback, and
/// serves `/demo`, a page of signed URLs over them.
struct CommandLineOptions {
    var configFile: URL?
    var demo = false
    var samplesDirectory: URL?

    static let usage = "usage: webimage-server [--config FILE] [--demo [--samples DIR]]"

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--config":
                guard let path = rest.popFirst() else { throw UsageError(message: "--config needs a file") }
                configFile = URL(fileURLWithPath: path)
            case "--demo":
                demo = true
            case "--samples":
                guard let path = rest.popFirst() else { throw UsageError(message: "--samples needs a directory") }
                samplesDirectory = URL(fileURLWithPath: path, isDirectory: true)
            case "-h", "--help":
                throw UsageError(message: Self.usage)
            default:
                throw UsageError(message: "unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The repository's sample images, found from this file's place in the checkout.
let defaultSamplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../Resources").standardizedFileURL

/// Bytes of the demo's one-run key and salt: as long as the HMAC's output, what imgproxy's docs suggest.
let demoKeyByteCount = 32

func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
    return handler
}
let logger = Logger(label: "webimage-server")

do {
    let options = try CommandLineOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    let environment = ProcessInfo.processInfo.environment
    var configuration = try options.configFile.map { try ServerConfiguration(file: $0, environment: environment) }
        ?? ServerConfiguration(environment: environment)
    var origin: Task<Void, any Error>?
    if options.demo {
        let directory = options.samplesDirectory ?? defaultSamplesDirectory
        let (files, samples) = try StaticSourceServer.samples(in: directory)
        let sources = try await DemoSources.start(files: files)
        origin = sources.task
        configuration.allowsLoopbackSources = true
        if configuration.signingKeys.isEmpty {
            // The demo page shows signed URLs: a key and salt for this run only.
            configuration.signingKeys = [URLSigner.KeyPair(key: randomBytes(demoKeyByteCount), salt: randomBytes(demoKeyByteCount))]
        }
        configuration.demo = DemoConfiguration(sourceBaseURL: sources.baseURL, samples: samples)
        logger.info("demo sources", metadata: ["url": "\(sources.baseURL)", "samples": "\(samples.count)"])
    }
    let server = try ImageServer(configuration: configuration, logger: logger)
    defer { origin?.cancel() }
    let (host, isDemo) = (configuration.host, options.demo)
    try await server.run { port in
        logger.info("listening", metadata: ["address": "http://\(host):\(port)/"])
        if isDemo { logger.info("demo page", metadata: ["url": "http://\(host):\(port)/demo"]) }
    }
} catch {
    FileHandle.standardError.write(Data("webimage-server: \(error)\n".utf8))
    exit(1)
}
