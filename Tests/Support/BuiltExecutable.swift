import Foundation
import Synchronization
import WebImageCore

/// Runs an executable product of this package that was built next to the test bundle.
public enum BuiltExecutable {
    /// The output of one run.
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// The executable `name` in the build directory, or nil when it was not built.
    public static func locate(_ name: String) -> URL? {
        let bundle = Bundle.main.bundleURL
        let candidates =
            [bundle.deletingLastPathComponent(), bundle]
            + (Bundle.main.executableURL.map { [$0.deletingLastPathComponent()] } ?? [])
        return candidates.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `name` with `arguments` and `environment` additions, feeding `input` on stdin, in
    /// `directory` (this process's own by default), and waits.
    public static func run(
        _ name: String, _ arguments: [String] = [], environment: [String: String] = [:],
        input: Data? = nil, in directory: URL? = nil
    ) throws -> Output {
        guard let url = locate(name) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        let errData = Locked(Data())  // written by the reader thread, read after group.wait()
        group.enter()
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }
}
