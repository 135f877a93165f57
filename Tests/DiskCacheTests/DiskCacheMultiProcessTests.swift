import Foundation
import Testing
import WebImageCore
import WebImageDiskCache
import WebImageTestSupport

/// Several processes sharing one cache directory, as the workers of a server do.
@Suite("Disk cache shared by processes")
struct DiskCacheMultiProcessTests {
    /// The `disk-cache-stress` helper, built beside the test bundle (the test target depends on it).
    static func helperExecutable() throws -> URL {
        let bundle = Bundle.main.bundleURL
        let candidates =
            [bundle.deletingLastPathComponent(), bundle, bundle.appendingPathComponent("Contents/MacOS")]
            + (Bundle.main.executableURL.map { [$0.deletingLastPathComponent()] } ?? [])
        for directory in candidates {
            let url = directory.appendingPathComponent("disk-cache-stress")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ImageError.fileIO(path: bundle.path, reason: "disk-cache-stress is not built next to the tests")
    }

    @Test func processesWritingReadingAndTrimmingOneDirectoryNeverTearAndSizesConverge() async throws {
        let temporary = try TemporaryDirectory(prefix: "disk-cache-shared")
        let maxDiskSize = 200_000
        let helper = try Self.helperExecutable()
        var processes: [(Process, Pipe)] = []
        for seed in 1...3 {
            let process = Process()
            process.executableURL = helper
            process.arguments = [temporary.url.path, "shared", "\(seed)", "300", "\(maxDiskSize)"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            processes.append((process, output))
        }

        // This process reads the same keys while the others write and trim.
        var configuration = DiskCacheConfiguration()
        configuration.maxDiskSize = maxDiskSize
        let cache = try DiskCache(directory: temporary.url, namespace: "shared", configuration: configuration)
        var reads = 0, torn = 0
        while processes.contains(where: { $0.0.isRunning }) || reads < 100 {
            if let data = try cache.data(forKey: "shared-\(reads % 16)"), !SelfCheckingPayload.isValid(data) {
                torn += 1
            }
            reads += 1
            // Suspends, so this loop does not hold one of the few cooperative threads other suites run on.
            try await Task.sleep(for: .milliseconds(1))
        }
        for (process, output) in processes {
            process.waitUntilExit()
            let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "helper said: \(report)")
            #expect(report.hasPrefix("ok"))
        }
        #expect(torn == 0)

        // A trim rescans, so this process's totals now count the other processes' entries too.
        try cache.removeExpiredData()
        let files = try FileManager.default.contentsOfDirectory(
            at: cache.directory, includingPropertiesForKeys: [.fileSizeKey])
        let sizes = try files.map { try $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 }
        #expect(cache.totalCount == files.count)
        #expect(cache.totalSize == sizes.reduce(0, +))
        #expect(cache.totalSize <= maxDiskSize)
        for file in files { #expect(SelfCheckingPayload.isValid(try Data(contentsOf: file))) }
    }
}
