import Foundation
import WebImageCore

/// The input images of scripts/reference/filter-reference.py, built the same way, and the reference it wrote.
enum FilterTestImages {
    static let width = 48, height = 40

    /// Gradients in red and green, an 8-pixel checker in blue, hashed noise of +-16 on everything
    /// (`sample` in scripts/reference/filter-reference.py).
    static func sample(_ x: Int, _ y: Int, _ c: Int) -> UInt8 {
        var h = UInt32(x) &* 374_761_393 &+ UInt32(y) &* 668_265_263 &+ UInt32(c) &* 2_246_822_519
        h = (h ^ (h >> 13)) &* 1_274_126_177
        let noise = Int(h >> 24) % 33 - 16
        let value: Int
        switch c {
        case 0: value = x * 255 / (width - 1)
        case 1: value = y * 255 / (height - 1)
        default: value = (x / 8 + y / 8) % 2 == 0 ? 220 : 40
        }
        return UInt8(min(255, max(0, value + noise)))
    }

    /// Opaque on the left third, fading to fully transparent from x = 38 (`alpha` in the script).
    static func alpha(_ x: Int) -> UInt8 { UInt8(max(0, 255 - max(0, x - 16) * 12)) }

    static func image(_ layout: PixelLayout) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                switch layout {
                case .gray8: bytes.append(sample(x, y, 2))
                case .rgb8: bytes += [sample(x, y, 0), sample(x, y, 1), sample(x, y, 2)]
                case .rgba8: bytes += [sample(x, y, 0), sample(x, y, 1), sample(x, y, 2), alpha(x)]
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// One line of filter-reference.tsv.
    struct Case {
        let name: String
        /// The input's layout.
        let layout: PixelLayout
        let expected: PixelBuffer
    }

    /// Every case in filter-reference.tsv, by "name layout".
    static let reference: [String: Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("filter-reference.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var cases: [String: Case] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            guard fields.count == 5, let layout = PixelLayout(rawValue: String(fields[1])),
                let width = Int(fields[2]), let height = Int(fields[3])
            else { continue }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(fields[4].count / 2)
            var index = fields[4].startIndex
            while index < fields[4].endIndex {
                let next = fields[4].index(index, offsetBy: 2)
                bytes.append(UInt8(fields[4][index..<next], radix: 16) ?? 0)
                index = next
            }
            // The layout column names the input; the output's layout follows from its size (grayscale
            // turns RGB into gray).
            let outputLayout = PixelLayout.allCases.first { $0.bytesPerPixel * width * height == bytes.count }
            guard let outputLayout else { continue }
            let buffer = PixelBuffer(width: width, height: height, layout: outputLayout, bytes: bytes)
            cases["\(fields[0]) \(layout.rawValue)"] = Case(name: String(fields[0]), layout: layout, expected: buffer)
        }
        return cases
    }()

    /// The share of `differences` larger than `limit`.
    static func share(of differences: [Int], above limit: Int) -> Double {
        Double(differences.filter { $0 > limit }.count) / Double(max(1, differences.count))
    }

    /// Largest, mean and every absolute difference between two same-sized buffers. For RGBA, alpha is always
    /// compared, colour only where the expected alpha is at least `minimumAlphaForColour`: below that
    /// the straight colour is a small premultiplied value divided by a small alpha, where one level of
    /// rounding is many levels of colour, and invisible anyway.
    static func difference(
        _ actual: PixelBuffer, _ expected: PixelBuffer,
        minimumAlphaForColour: UInt8 = 32
    ) -> (max: Int, mean: Double, differences: [Int]) {
        precondition(
            actual.width == expected.width && actual.height == expected.height
                && actual.layout == expected.layout, "compared buffers differ in size or layout")
        let a = actual.packed().bytes, e = expected.packed().bytes
        let channels = actual.layout.bytesPerPixel
        var largest = 0, total = 0, count = 0
        var differences: [Int] = []
        for i in 0..<a.count {
            let isColour = actual.layout.hasAlpha && i % channels != 3
            if isColour && e[i - i % channels + 3] < minimumAlphaForColour { continue }
            let d = abs(Int(a[i]) - Int(e[i]))
            largest = max(largest, d); total += d; count += 1
            differences.append(d)
        }
        return (largest, count == 0 ? 0 : Double(total) / Double(count), differences)
    }
}
