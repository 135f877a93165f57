import Logging
import WebImageCore

/// Keeps every message logged through the loggers it makes, with level and metadata; passed to the code
/// under test through configuration or context, never bootstrapped.
public final class RecordingLog: Sendable {
    /// One logged message.
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
    }

    /// Guards the entries logged so far, in order.
    private let lines = Locked<[Entry]>([])

    public init() {}

    /// Every entry logged so far.
    public var entries: [Entry] { lines.withLock { $0 } }
    /// Every message logged so far.
    public var messages: [String] { entries.map(\.message) }
    /// The levels used so far.
    public var levels: Set<Logger.Level> { Set(entries.map(\.level)) }
    /// The entries whose message is `message`.
    public func entries(_ message: String) -> [Entry] { entries.filter { $0.message == message } }

    /// A logger that records here everything at `level` and above.
    public func logger(level: Logger.Level, label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) { lines.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let log: RecordingLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.append(
                Entry(
                    level: event.level, message: "\(event.message)",
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}
