import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage prefetch FILE`: fill the cache with a list of URLs, with a live progress bar on a terminal.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Prefetch URLs (one per line; - reads stdin) into the cache.")

    @Argument(help: "A file with one URL per line, or - for stdin.")
    var file: String

    @Option(help: "Loads at once.")
    var concurrency = 6

    func run() async throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                Console.error("cannot read \(file)")
                throw ExitCode.failure
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let progress = PrefetchProgress(total: lines.count, live: Console.stdoutIsTerminal)
        let manager = WebImage.shared
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < lines.count else { return }
                let line = lines[next]
                next += 1
                group.addTask {
                    let url: URL
                    do { url = try URLArgument.parse(line) } catch {
                        progress.record(line, .failed(Console.describe(error)), bytes: 0)
                        return
                    }
                    if await manager.cache.containsImage(forKey: manager.cacheKey(for: url), cacheType: .all) != .none {
                        progress.record(line, .skipped, bytes: 0)
                        return
                    }
                    do {
                        let loaded = try await manager.image(for: url, options: [.waitStoreCache, .lowPriority])
                        progress.record(line, .finished, bytes: loaded.data?.count ?? 0)
                    } catch {
                        progress.record(line, .failed(Console.describe(error)), bytes: 0)
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { startNext() }
            while await group.next() != nil { startNext() }
        }
        print(progress.summary(), terminator: "")
        if progress.failedCount > 0 { throw ExitCode.failure }
    }
}

/// Counts, bytes and rate of a prefetch; draws a bar on a terminal, logs lines otherwise.
final class PrefetchProgress: Sendable {
    enum Outcome: Sendable {
        case finished, skipped
        case failed(String)
    }

    let total: Int
    let live: Bool
    let start = ContinuousClock.now
    /// Guards the counts and the failure reasons; drawing happens under it too so lines never interleave.
    private let state = Mutex<(finished: Int, skipped: Int, failures: [(String, String)], bytes: Int)>((0, 0, [], 0))

    init(total: Int, live: Bool) {
        self.total = total
        self.live = live
    }

    var failedCount: Int { state.withLock { $0.failures.count } }

    func record(_ url: String, _ outcome: Outcome, bytes: Int) {
        state.withLock { state in
            switch outcome {
            case .finished: state.finished += 1
            case .skipped: state.skipped += 1
            case .failed(let reason): state.failures.append((url, reason))
            }
            state.bytes += bytes
            let done = state.finished + state.skipped + state.failures.count
            let seconds = max(0.001, elapsedSeconds())
            let rate = Double(state.bytes) / seconds
            if live {
                let width = 30
                let filled = total == 0 ? width : width * done / total
                let eta = done == 0 ? 0 : seconds / Double(done) * Double(total - done)
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                let line = String(
                    format: "\r[%@] %d/%d  %@  %@/s  ETA %.0fs ", bar, done, total,
                    ByteCountFormatter.string(fromByteCount: Int64(state.bytes), countStyle: .binary),
                    ByteCountFormatter.string(fromByteCount: Int64(rate), countStyle: .binary), eta)
                FileHandle.standardOutput.write(Data(line.utf8))
                if done == total { FileHandle.standardOutput.write(Data("\n".utf8)) }
            } else {
                let word =
                    switch outcome {
                    case .finished: "finished";
                    case .skipped: "skipped (cached)";
                    case .failed(let r): "failed: \(r)"
                    }
                print("[\(done)/\(total)] \(url) \(word)")
            }
        }
    }

    private func elapsedSeconds() -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func summary() -> String {
        state.withLock { state in
            var out = "prefetch: \(state.finished) finished, \(state.skipped) skipped, \(state.failures.count) failed"
            out += String(
                format: " (%@ in %.1fs)\n",
                ByteCountFormatter.string(fromByteCount: Int64(state.bytes), countStyle: .binary),
                elapsedSeconds())
            for (url, reason) in state.failures { out += "  failed \(url): \(reason)\n" }
            return out
        }
    }
}
