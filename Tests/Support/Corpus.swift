import Foundation

/// The shared image corpus (`../shared/corpus` beside the checkout), when it is present.
///
/// Tests that use it must also pass without it: check ``Corpus/root`` and fall back to fixtures made in code.
public enum Corpus {
    /// One line of `manifest.tsv`.
    public struct Entry: Sendable {
        public let path: String
        public let format: String
        public let expectDecode: Bool
        public let width: Int?
        public let height: Int?
        public let frameCount: Int?
        public let note: String
        /// The file's absolute URL.
        public var url: URL { Corpus.root!.appendingPathComponent(path) }
    }

    /// The corpus folder, or nil when it is not there. `WEBIMAGE_CORPUS` overrides the location.
    public static let root: URL? = {
        if let override = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"] {
            return URL(fileURLWithPath: override)
        }
        // Tests/Support/Corpus.swift -> package root -> ../shared/corpus
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.tsv").path)
            ? candidate : nil
    }()

    /// Every manifest entry; empty without the corpus.
    public static let entries: [Entry] = {
        guard let root, let text = try? String(contentsOf: root.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9 else { return nil }
            return Entry(
                path: f[0], format: f[1], expectDecode: f[2] == "decode", width: Int(f[3]),
                height: Int(f[4]), frameCount: Int(f[5]), note: f[8])
        }
    }()

    /// Entries of `format` ("png", "jpeg", "webp", "gif") under folder prefix `folder`.
    public static func entries(format: String, folder: String) -> [Entry] {
        entries.filter { $0.format == format && $0.path.hasPrefix(folder) }
    }
}
