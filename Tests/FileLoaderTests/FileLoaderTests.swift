import Foundation
import Synchronization
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageFileLoader

/// Loads with `loader` and waits for the single completion.
func load(
    _ loader: FileLoader, _ url: URL, options: ImageOptions = [],
    progress: LoadProgressHandler? = nil
) async -> Result<LoadedImage, ImageError> {
    await withCheckedContinuation { continuation in
        _ = loader.requestImage(with: url, options: options, context: ImageContext(), progress: progress) {
            continuation.resume(returning: $0)
        }
    }
}

@Suite("FileLoader")
struct FileLoaderTests {
    @Test func readsFileURLsAndAbsolutePaths() async throws {
        let dir = try TemporaryDirectory()
        let bytes = Data((0..<5000).map { UInt8($0 % 251) })
        let file = try dir.write(bytes, to: "a.bin")
        let loader = FileLoader()
        #expect(try await load(loader, file).get().data == bytes)
        let pathURL = try #require(URL(string: file.path))
        #expect(pathURL.scheme == nil)
        #expect(loader.canRequestImage(for: pathURL))
        #expect(try await load(loader, pathURL).get().data == bytes)
        #expect(!loader.canRequestImage(for: URL(string: "https://example.com/a.png")!))
    }

    @Test func largeFilesStreamWithProgress() async throws {
        let dir = try TemporaryDirectory()
        var configuration = FileLoaderConfiguration()
        configuration.chunkSize = 64 * 1024
        let size = 1_000_000
        let file = try dir.write(Data(repeating: 7, count: size), to: "big.bin")
        let reports = Locked<[Int64]>([])
        let result = await load(
            FileLoader(configuration: configuration), file,
            progress: { p in
                #expect(p.expectedBytes == Int64(size))
                reports.withLock { $0.append(p.receivedBytes) }
            })
        #expect(try result.get().data.count == size)
        let seen = reports.withLock { $0 }
        #expect(seen.count == (size + 65535) / 65536)
        #expect(seen == seen.sorted() && seen.last == Int64(size))
    }

    @Test func missingFilesDirectoriesAndUnreadableFilesAreClearErrors() async throws {
        let dir = try TemporaryDirectory()
        let loader = FileLoader()
        #expect(
            await load(loader, dir.file("nope.png")).failure
                == .fileIO(path: dir.file("nope.png").path, reason: "no such file"))
        #expect(await load(loader, dir.url).failure == .fileIO(path: dir.url.path, reason: "is a directory"))
        // A path through a regular file fails even for root.
        let file = try dir.write(Data([1]), to: "plain")
        let through = file.appendingPathComponent("child.png")
        guard case .fileIO(_, let reason)? = await load(loader, through).failure else {
            Issue.record("expected a file error"); return
        }
        #expect(reason.lowercased().contains("not a directory"))
    }

    @Test func permissionDeniedIsReportedWhenNotRoot() async throws {
        // Root reads any file whatever its mode, so only an unprivileged run can observe EACCES.
        guard getuid() != 0 else { return }
        let dir = try TemporaryDirectory()
        let file = try dir.write(Data([1, 2, 3]), to: "secret.png")
        chmod(file.path, 0)
        #expect(await load(FileLoader(), file).failure == .fileIO(path: file.path, reason: "permission denied"))
    }

    @Test func allowedRootsForbidPathsOutsideThem() async throws {
        let root = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        let inside = try root.write(Data([1]), to: "ok.png")
        let secret = try outside.write(Data([2]), to: "secret.png")
        try FileManager.default.createSymbolicLink(at: root.file("link.png"), withDestinationURL: secret)
        let loader = FileLoader(allowedRoots: [root.url])
        #expect(try await load(loader, inside).get().data == Data([1]))
        for forbidden in [
            secret, URL(fileURLWithPath: "/etc/passwd"), root.file("link.png"),
            URL(fileURLWithPath: root.url.path + "/../" + outside.url.lastPathComponent + "/secret.png"),
        ] {
            guard case .fileIO(_, let reason)? = await load(loader, forbidden).failure else {
                Issue.record("\(forbidden.path) was not refused"); continue
            }
            #expect(reason.contains("outside"))
        }
    }

    /// imgproxy's `local://` sources: paths under the local root, nothing outside it, and only when a
    /// root is set.
    @Test func localURLsReadUnderTheLocalRootAndNowhereElse() async throws {
        let root = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: root.file("images"), withIntermediateDirectories: true)
        _ = try root.write(Data([7, 8]), to: "images/a b.png")
        let secret = try outside.write(Data([2]), to: "secret.png")
        try FileManager.default.createSymbolicLink(at: root.file("link.png"), withDestinationURL: secret)
        var configuration = FileLoaderConfiguration()
        configuration.localRoot = root.url
        // Allowed roots elsewhere do not widen what local URLs may reach.
        configuration.allowedRoots = [outside.url]
        let loader = FileLoader(configuration: configuration)
        let local = try #require(URL(string: "local:///images/a%20b.png"))
        #expect(loader.canRequestImage(for: local))
        #expect(try await load(loader, local).get().data == Data([7, 8]))
        let escapes = ["local:///../\(outside.url.lastPathComponent)/secret.png", "local:///link.png"]
        for text in escapes {
            let url = try #require(URL(string: text))
            guard case .fileIO(_, let reason)? = await load(loader, url).failure else {
                Issue.record("\(text) was not refused"); continue
            }
            #expect(reason.contains("outside"), "\(text): \(reason)")
        }
        guard case .fileIO? = await load(loader, URL(string: "local:///images/missing.png")!).failure else {
            Issue.record("a missing local file did not fail with fileIO"); return
        }
        #expect(!FileLoader().canRequestImage(for: local), "no local root, no local URLs")
    }

    @Test func filesOverTheSizeLimitFailBeforeReading() async throws {
        let dir = try TemporaryDirectory()
        var configuration = FileLoaderConfiguration()
        configuration.maxFileSize = 1000
        let file = try dir.write(Data(count: 1001), to: "big.png")
        let reports = Locked(0)
        let failure = await load(
            FileLoader(configuration: configuration), file,
            progress: { _ in
                reports.withLock { $0 += 1 }
            }
        ).failure
        guard case .fileIO(_, let reason)? = failure else {
            Issue.record("expected a file error, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("1001 bytes") && reason.contains("maxFileSize of 1000 bytes"), "\(reason)")
        #expect(reports.withLock { $0 } == 0, "no byte is read")
    }

    @Test func aFileOfExactlyTheSizeLimitLoads() async throws {
        let dir = try TemporaryDirectory()
        var configuration = FileLoaderConfiguration()
        configuration.maxFileSize = 10_000
        configuration.chunkSize = 4096
        let bytes = Data((0..<10_000).map { UInt8($0 % 251) })
        let file = try dir.write(bytes, to: "exact.bin")
        let loaded = try await load(FileLoader(configuration: configuration), file).get()
        #expect(loaded.data == bytes)
    }

    @Test func cancelledReadsNeverComplete() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write(Data(count: 4 << 20), to: "slow.bin")
        var configuration = FileLoaderConfiguration()
        configuration.chunkSize = 4096
        let loader = FileLoader(configuration: configuration)
        let completed = Locked(false)
        let reports = Locked(0)
        let (progressed, progressedContinuation) = AsyncStream<Void>.makeStream()
        // The reader waits inside its first progress report until the test has cancelled.
        let cancelledByTest = DispatchSemaphore(value: 0)
        let operation = loader.requestImage(
            with: file, options: [], context: ImageContext(),
            progress: { _ in
                let first = reports.withLock {
                    $0 += 1; return $0 == 1
                }
                if first {
                    progressedContinuation.yield()
                    cancelledByTest.wait()
                }
            }
        ) { _ in completed.withLock { $0 = true } }
        for await _ in progressed { break }
        operation.cancel()
        cancelledByTest.signal()
        let reader = try #require(operation as? FileReadOperation)
        while !reader.isReaderDone { await Task.yield() }
        #expect(!completed.withLock { $0 })
        // It stopped at the next chunk boundary, not after the 1024 chunks of the file.
        #expect(reports.withLock { $0 } == 1)
    }

    @Test func loadsThroughTheManagerEndToEnd() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write(Data("RAWI".utf8) + Data([0, 2, 0, 1, 2, 9, 9]), to: "tiny.raw")
        let coders = ImageCodersManager(coders: [RawImageCoder()])
        let manager = ImageManager(cache: ImageCachesManager(), loader: FileLoader(coders: coders), coders: coders)
        let result = try await manager.image(for: file)
        #expect(result.image.width == 2 && result.image.height == 1 && result.cacheType == .none)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
