import Foundation
import Logging
import Testing
import WebImageCore
import WebImageFileLoader
import WebImageTestSupport

@Suite("FileLoader: logs")
struct FileLoaderObservabilityTests {
    @Test func aReadOutsideTheAllowedRootsIsLoggedWithThePath() async throws {
        let allowed = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        let file = try other.write(Data("secret".utf8), to: "outside.bin")
        let log = RecordingLog()
        var configuration = FileLoaderConfiguration()
        configuration.allowedRoots = [allowed.url]
        let result = await load(FileLoader(configuration: configuration, logger: log.logger(level: .debug)), file)
        #expect(throws: ImageError.self) { try result.get() }
        let refusal = try #require(log.entries("read refused: outside the allowed roots").first)
        #expect(refusal.level == .debug)
        #expect(refusal.metadata["path"] == "\(file.path)")
    }

    @Test func aFileOverTheSizeLimitIsLoggedWithTheLimit() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write(Data(count: 100), to: "big.bin")
        let log = RecordingLog()
        var configuration = FileLoaderConfiguration()
        configuration.maxFileSize = 10
        _ = await load(FileLoader(configuration: configuration, logger: log.logger(level: .debug)), file)
        let refusal = try #require(log.entries("read refused: over the size limit").first)
        #expect(refusal.metadata["limit"] == "10")
    }

    @Test func theRequestsLoggerWinsAndNothingIsLoggedAtInfo() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write(Data(count: 100), to: "big.bin")
        let configured = RecordingLog()
        let perRequest = RecordingLog()
        var configuration = FileLoaderConfiguration()
        configuration.maxFileSize = 10
        var context = ImageContext()
        context.logger = perRequest.logger(level: .info)
        let loader = FileLoader(configuration: configuration, logger: configured.logger(level: .debug))
        _ = await withCheckedContinuation { continuation in
            _ = loader.requestImage(with: file, options: [], context: context, progress: nil) {
                continuation.resume(returning: $0)
            }
        }
        #expect(configured.messages.isEmpty)
        #expect(perRequest.messages.isEmpty)
    }
}
