import Foundation

/// Runs a reference command-line tool from the system (avifenc, avifdec, heif-enc, heif-convert from
/// Debian's libavif-bin and libheif-examples, which scripts/install-deps.sh installs) on files in a
/// temporary directory, for tests that compare our coders with the libraries' own tools.
public enum ReferenceTool {
    /// A tool that failed or is missing, with what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The tool's path in `/usr/bin` or `/usr/local/bin`, or nil when it is not installed.
    public static func path(of tool: String) -> String? {
        ["/usr/bin", "/usr/local/bin"].map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs `tool` with `arguments` and waits; throws with its output when it is missing or exits non-zero.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> String {
        guard let path = path(of: tool) else {
            throw Failure(description: "\(tool) is not installed (scripts/install-deps.sh installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        // One file for both streams: the tools print little, and a file never fills up like a pipe.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reference-tool-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(output)")
        }
        return output
    }
}
