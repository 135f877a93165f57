import Foundation
import WebImageCore

/// The fixtures of `scripts/reference/tiff-bmp-ico-reference.py`: files under `Tests/<Coder>Tests/Fixtures`, each
/// with Pillow's pixels as `<file>.reference.png` and a line of `reference.tsv` saying how to compare.
public struct ReferenceFixture: Sendable, CustomStringConvertible {
    /// How the coder's pixels are compared with the reference's.
    public enum Comparison: String, Sendable {
        /// Every channel within the tolerance.
        case rgba
        /// Colour channels only (the reference ignores the file's alpha on purpose; see the note).
        case rgb
        /// Colours premultiplied by alpha, within the tolerance.
        case premultiplied
        /// The file must be refused with a typed error.
        case error
    }

    public let file: String, width: Int, height: Int, tolerance: Int, comparison: Comparison, note: String
    public let folder: URL

    public var description: String { file }
    /// The fixture's bytes.
    public func data() throws -> Data { try Data(contentsOf: folder.appendingPathComponent(file)) }
    /// The reference PNG's bytes (Pillow's RGBA).
    public func referencePNG() throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(file + ".reference.png"))
    }

    /// Every fixture listed in `Tests/<target>/Fixtures/reference.tsv`.
    public static func all(in target: String) -> [ReferenceFixture] {
        let folder = PackagePaths.root.appendingPathComponent("Tests/\(target)/Fixtures")
        let text = (try? String(contentsOf: folder.appendingPathComponent("reference.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, let width = Int(f[1]), let height = Int(f[2]), let tolerance = Int(f[3]),
                let comparison = Comparison(rawValue: f[4])
            else { return nil }
            return ReferenceFixture(
                file: f[0], width: width, height: height, tolerance: tolerance,
                comparison: comparison, note: f[5], folder: folder)
        }
    }

    /// What differs between `decoded` and `reference` under this fixture's comparison; nil when they match.
    public func mismatch(decoded: PixelBuffer, reference: PixelBuffer) -> String? {
        guard decoded.width == width, decoded.height == height else {
            return "\(file): \(decoded.width)x\(decoded.height), reference \(width)x\(height)"
        }
        let a = decoded.converted(to: .rgba8).packed().bytes, b = reference.converted(to: .rgba8).packed().bytes
        var worst = 0, at = 0
        for i in stride(from: 0, to: a.count, by: 4) {
            for c in 0..<(comparison == .rgb ? 3 : 4) {
                let d: Int
                if comparison == .premultiplied && c < 3 {
                    d = abs(Int(a[i + c]) * Int(a[i + 3]) - Int(b[i + c]) * Int(b[i + 3])) / 255
                } else {
                    d = abs(Int(a[i + c]) - Int(b[i + c]))
                }
                if d > worst { worst = d; at = i / 4 }
            }
        }
        return worst > tolerance
            ? "\(file): a channel differs by \(worst) at (\(at % width), \(at / width)), tolerance \(tolerance)" : nil
    }
}

/// Damaged copies of a valid file for hostile-input tests: every truncation length on a grid, and
/// seeded bit flips past the signature.
public enum DamagedCopies {
    /// `data` cut at `count` lengths spread over the file, the short ones included.
    public static func truncations(of data: Data, count: Int = 64) -> [Data] {
        let lengths = Set((0..<count).map { $0 * data.count / count } + Array(0..<min(16, data.count)))
        return lengths.sorted().map { data.prefix($0) }
    }

    /// `copies` copies of `data`, each with `flips` random bits flipped after the first `keep` bytes.
    public static func bitFlips(
        of data: Data, copies: Int = 200, flips: Int = 4, keep: Int = 4, seed: UInt64 = 1
    ) -> [Data] {
        var generator = SeededGenerator(seed: seed)
        guard data.count > keep else { return [] }
        return (0..<copies).map { _ in
            var copy = [UInt8](data)
            for _ in 0..<flips {
                let i = Int.random(in: keep..<copy.count, using: &generator)
                copy[i] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            }
            return Data(copy)
        }
    }
}
