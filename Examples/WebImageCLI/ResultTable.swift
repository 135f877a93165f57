import Foundation
import WebImage

/// One line of the load table: what was asked for and what came back.
struct LoadRow {
    var url: String
    var format = ""
    var size = ""
    var frames = ""
    var bytes = ""
    var source = ""
    var milliseconds: Double = 0
    var error: String?

    init(url: URL, result: Result<ImageLoadResult, ImageError>, milliseconds: Double) {
        self.url = url.absoluteString
        self.milliseconds = milliseconds
        switch result {
        case .success(let loaded):
            format = loaded.image.format.identifier
            size = "\(loaded.image.width)x\(loaded.image.height)"
            frames = "\(loaded.image.frameCount)"
            bytes =
                loaded.data.map { ByteCountFormatter.string(fromByteCount: Int64($0.count), countStyle: .binary) }
                ?? "-"
            source = LoadRow.sourceName(loaded.cacheType, url: url)
        case .failure(let failure):
            error = failure.description
        }
    }

    static func sourceName(_ type: ImageCacheType, url: URL) -> String {
        switch type {
        case .none: url.isFileURL ? "file" : "network"
        case .memory: "memory"
        case .disk: "disk"
        case .all: "cache"
        }
    }
}

/// Prints rows as an aligned text table.
enum ResultTable {
    static func render(_ rows: [LoadRow], title: String? = nil) -> String {
        let header = ["URL", "format", "size", "frames", "bytes", "from", "time"]
        let cells = rows.map { row -> [String] in
            let time = String(format: "%.1f ms", row.milliseconds)
            if let error = row.error { return [row.url, "error: \(error)", "", "", "", "", time] }
            return [row.url, row.format, row.size, row.frames, row.bytes, row.source, time]
        }
        var widths = header.map(\.count)
        for line in cells {
            for (i, cell) in line.enumerated() where i != 1 || line[2] != "" { widths[i] = max(widths[i], cell.count) }
        }
        func format(_ line: [String]) -> String {
            line.enumerated().map { i, cell in
                cell.padding(toLength: max(widths[i], cell.count), withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        var out = title.map { "\($0)\n" } ?? ""
        out += format(header) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for line in cells { out += format(line) + "\n" }
        return out
    }
}

/// Times one load through `manager`.
func timedLoad(
    _ manager: ImageManager, _ url: URL, options: ImageOptions = [],
    context: ImageContext = ImageContext()
) async -> (Result<ImageLoadResult, ImageError>, Double) {
    let start = ContinuousClock.now
    let result: Result<ImageLoadResult, ImageError>
    do {
        result = .success(try await manager.image(for: url, options: options, context: context))
    } catch {
        result = .failure(error)
    }
    let elapsed = ContinuousClock.now - start
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    return (result, ms)
}
