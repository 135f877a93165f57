import Foundation
import WebImage

/// Output helpers: a failure is one line on stderr, never a stack trace.
enum Console {
    /// Whether stdout is a terminal (progress bars) or a pipe/file (plain log lines).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("webimage: \(message)\n".utf8))
    }

    /// A short, human description of a failure.
    static func describe(_ error: any Error) -> String {
        if let error = error as? ImageError { return error.description }
        return "\(error)"
    }
}

/// Parses the URL arguments a user types: absolute URLs, or paths of local files.
enum URLArgument {
    static func parse(_ text: String) throws(ImageError) -> URL {
        if text.hasPrefix("/") || text.hasPrefix("./") || text.hasPrefix("../") {
            return URL(fileURLWithPath: text).standardizedFileURL
        }
        if let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
            scheme == "file" || url.host?.isEmpty == false
        {
            return url
        }
        // A relative path (`photos/a.jpg`) names a file when one is there.
        if FileManager.default.fileExists(atPath: text) {
            return URL(fileURLWithPath: text).standardizedFileURL
        }
        throw .invalidURL(text)
    }
}
