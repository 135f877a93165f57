import Foundation

/// A directory under the system's temporary folder, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory's URL.
    public let url: URL

    /// Creates a fresh, empty directory whose name starts with `prefix`.
    public init(prefix: String = "webimage-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// `url` with `name` appended.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `data` to `name` and returns its URL.
    @discardableResult
    public func write(_ data: Data, to name: String) throws -> URL {
        let target = file(name)
        try data.write(to: target)
        return target
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
