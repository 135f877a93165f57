import Foundation
import Testing
import WebImageCore

/// Core's resampler against `resample-reference.tsv`, made by scripts/reference/resample-reference.py: Pillow's own
/// resizes (nearest, bilinear, bicubic = Catmull-Rom, Lanczos3) and an exact float64 NumPy resample with
/// Pillow's coefficient scheme (every filter, Mitchell and the area-average box included).
///
/// Tolerances:
/// - float64 references: within 1 level (we mix in Float, they in float64: a few pixels sit at .5); for
///   RGBA the premultiplied colour within 2 (a colour under alpha `a` is known to 255/a of a level) and
///   alpha within 1.
/// - Pillow's own output: nearest to the byte; the others (RGBA premultiplied, as Pillow mixes it) within
///   a mean of 1 level and at most 32 at a few pixels, because Pillow rounds and clips to 8 bits between its two passes, which cuts the
///   kernels' overshoot at hard edges (the script shows its code equals Pillow once that is emulated).
@Suite("Resampling against Pillow and float64 references")
struct ResamplingReferenceTests {
    struct Case {
        let filter: ResamplingFilter
        let layout: PixelLayout
        let width: Int
        let height: Int
        let reference: String
        let bytes: [UInt8]
    }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "resample-reference.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 8, let filter = ResamplingFilter(rawValue: f[0]), let layout = PixelLayout(rawValue: f[1]),
                let width = Int(f[4]), let height = Int(f[5])
            else { return nil }
            var bytes: [UInt8] = []
            var index = f[7].startIndex
            while index < f[7].endIndex {
                let next = f[7].index(index, offsetBy: 2)
                bytes.append(UInt8(f[7][index..<next], radix: 16)!)
                index = next
            }
            return Case(filter: filter, layout: layout, width: width, height: height, reference: f[6], bytes: bytes)
        }
    }()

    /// The script's test picture (see `source` there), built the same way.
    static func source(_ layout: PixelLayout) -> PixelBuffer {
        let width = 23, height = 19, channels = layout.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * channels
                for c in 0..<channels {
                    var v = (x * 9 + y * 5 + c * 60) % 256
                    if (8..<14).contains(x) && (6..<12).contains(y) { v = 250 - c * 20 }
                    bytes[o + c] = UInt8(v)
                }
                if channels == 4 {
                    if x < 4 {
                        bytes[o] = 255; bytes[o + 1] = 0; bytes[o + 2] = 255; bytes[o + 3] = 0
                    } else {
                        bytes[o + 3] = UInt8(min(255, 60 + (x * 11 + y * 7) % 196))
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    @Test func theReferenceFileHasEveryFilterAndLayout() {
        #expect(Self.cases.count == 135)
        #expect(Set(Self.cases.map(\.filter)) == Set(ResamplingFilter.allCases))
        #expect(Set(Self.cases.map(\.layout)) == Set(PixelLayout.allCases))
    }

    @Test func matchesTheFloat64Resample() {
        for c in Self.cases where c.reference == "float64" {
            let ours = ImageResampler.resample(
                Self.source(c.layout), width: c.width, height: c.height, filter: c.filter)
            #expect(ours.width == c.width && ours.height == c.height)
            let worst = Self.worstDifference(ours.bytes, c.bytes, layout: c.layout)
            #expect(
                worst.color <= (c.layout == .rgba8 ? 2 : 1) && worst.alpha <= 1,
                "\(c.filter) \(c.layout) \(c.width)x\(c.height): \(worst)")
        }
    }

    @Test func matchesPillow() {
        for c in Self.cases where c.reference == "pillow" {
            let ours = ImageResampler.resample(
                Self.source(c.layout), width: c.width, height: c.height, filter: c.filter)
            #expect(ours.width == c.width && ours.height == c.height)
            if c.filter == .nearest {
                #expect(ours.bytes == c.bytes, "nearest \(c.layout) \(c.width)x\(c.height)")
                continue
            }
            let diffs = Self.differences(ours.bytes, c.bytes, layout: c.layout)
            let mean = diffs.reduce(0, +) / Double(diffs.count)
            #expect(
                mean <= 1 && diffs.max()! <= 32,
                "\(c.filter) \(c.layout) \(c.width)x\(c.height): mean \(mean) max \(diffs.max()!)")
        }
    }

    /// Every channel's difference; RGBA compared premultiplied (the colour under alpha `a` counts `a`/255 of
    /// itself: what shows), as Pillow works.
    static func differences(_ a: [UInt8], _ b: [UInt8], layout: PixelLayout) -> [Double] {
        guard layout == .rgba8 else { return zip(a, b).map { Double(abs(Int($0) - Int($1))) } }
        var out: [Double] = []
        for p in stride(from: 0, to: a.count, by: 4) {
            for c in 0..<3 {
                out.append(abs(Double(a[p + c]) * Double(a[p + 3]) - Double(b[p + c]) * Double(b[p + 3])) / 255)
            }
            out.append(Double(abs(Int(a[p + 3]) - Int(b[p + 3]))))
        }
        return out
    }

    /// Largest difference of (premultiplied) colour and of alpha; colour under zero reference alpha is not compared.
    static func worstDifference(_ a: [UInt8], _ b: [UInt8], layout: PixelLayout) -> (color: Double, alpha: Int) {
        guard layout == .rgba8 else {
            return (Double(zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0), 0)
        }
        var color = 0.0, alpha = 0
        for p in stride(from: 0, to: a.count, by: 4) {
            alpha = max(alpha, abs(Int(a[p + 3]) - Int(b[p + 3])))
            guard b[p + 3] > 0 else { continue }
            for c in 0..<3 {
                let pa = Double(a[p + c]) * Double(a[p + 3]) / 255, pb = Double(b[p + c]) * Double(b[p + 3]) / 255
                color = max(color, abs(pa - pb))
            }
        }
        return (color, alpha)
    }
}

@Suite("Resampling: edges, alpha, sizes")
struct ResamplingBehaviourTests {
    /// Weights renormalised at the borders: a flat image stays flat to its edges, up or down, with every filter.
    @Test(arguments: ResamplingFilter.allCases)
    func flatImagesStayFlatToTheEdges(filter: ResamplingFilter) {
        for layout in PixelLayout.allCases {
            let source = PixelBuffer(
                width: 31, height: 17, layout: layout,
                bytes: [UInt8](repeating: 173, count: 31 * 17 * layout.bytesPerPixel))
            for (w, h) in [(1, 1), (4, 3), (30, 17), (31, 5), (77, 40)] {
                let out = ImageResampler.resample(source, width: w, height: h, filter: filter)
                #expect(out.width == w && out.height == h)
                #expect(out.bytes.allSatisfy { $0 == 173 }, "\(filter) \(layout) \(w)x\(h)")
            }
        }
    }

    /// An opaque white square on transparent black: with premultiplied mixing every visible pixel stays
    /// white (mixing straight RGBA would darken the edge towards the black under alpha 0).
    @Test(arguments: ResamplingFilter.allCases)
    func transparentBlackDoesNotDarkenEdges(filter: ResamplingFilter) {
        var source = PixelBuffer(width: 40, height: 30, layout: .rgba8)
        for y in 10..<20 { for x in 12..<28 { for c in 0..<4 { source.bytes[(y * 40 + x) * 4 + c] = 255 } } }
        for (w, h) in [(13, 9), (17, 11), (90, 70)] {
            let out = ImageResampler.resample(source, width: w, height: h, filter: filter)
            var darkest = 255
            for p in stride(from: 0, to: out.bytes.count, by: 4) where out.bytes[p + 3] > 0 {
                darkest = min(darkest, Int(out.bytes[p]), Int(out.bytes[p + 1]), Int(out.bytes[p + 2]))
            }
            #expect(darkest >= 254, "\(filter) \(w)x\(h): a visible pixel as dark as \(darkest)")
            #expect(out.bytes.contains { $0 > 0 }, "\(filter) \(w)x\(h) lost the square")
        }
    }

    @Test func sizesBelowOneAndEmptySourcesDoNotCrash() {
        let source = PixelBuffer(width: 5, height: 5, layout: .rgb8, bytes: [UInt8](repeating: 9, count: 75))
        let out = ImageResampler.resample(source, width: 0, height: -3, filter: .lanczos3)
        #expect(out.width == 1 && out.height == 1 && out.bytes == [9, 9, 9])
        let empty = PixelBuffer(width: 0, height: 0, layout: .gray8, bytes: [])
        #expect(ImageResampler.resample(empty, width: 3, height: 2, filter: .bilinear).bytes == [0, 0, 0, 0, 0, 0])
        #expect(ImageResampler.resample(source, width: 0, height: 0).width == 1)
    }

    /// A region of a resample is exactly that part of the whole resample.
    @Test(arguments: [ResamplingFilter.lanczos3, .mitchell, .bilinear, .box, .nearest])
    func aRegionEqualsCroppingTheWholeResample(filter: ResamplingFilter) {
        let source = ResamplingReferenceTests.source(.rgba8)
        let whole = ImageResampler.resample(source, width: 17, height: 31, filter: filter)
        for (x, y, w, h) in [(0, 0, 17, 31), (3, 5, 9, 11), (16, 30, 1, 1), (0, 12, 17, 4)] {
            let region = ImageResampler.resample(
                source, scaledWidth: 17, scaledHeight: 31,
                region: (x, y, w, h), filter: filter)
            var expected: [UInt8] = []
            for row in y..<(y + h) { expected += whole.bytes[(row * 17 + x) * 4..<(row * 17 + x + w) * 4] }
            #expect(
                region.width == w && region.height == h && region.bytes == expected,
                "\(filter) (\(x), \(y), \(w), \(h))")
        }
    }

    /// Streaming rows through `RowDownsampler` (what PNG thumbnails do) gives the pixels of the whole-buffer
    /// thumbnail resample, which block-averages a large reduction first and then applies Lanczos3.
    @Test func thumbnailResampleCloseToAFullLanczos() {
        var source = PixelBuffer(width: 400, height: 300, layout: .rgb8)
        for i in 0..<source.bytes.count { source.bytes[i] = UInt8((i / 3 % 400 + i / 1200 * 2) % 256) }
        var sampler = RowDownsampler(sourceWidth: 400, sourceHeight: 300, layout: .rgb8, width: 40, height: 30)
        source.bytes.withUnsafeBufferPointer { all in
            for y in 0..<300 { sampler.consume(row: UnsafeBufferPointer(rebasing: all[(y * 1200)..<((y + 1) * 1200)])) }
        }
        let streamed = sampler.finish()
        #expect(streamed == ImageResampler.resample(source, width: 40, height: 30))
        let exact = ImageResampler.resample(source, width: 40, height: 30, filter: .lanczos3)
        let diffs = zip(streamed.bytes, exact.bytes).map { abs(Int($0) - Int($1)) }
        #expect(
            Double(diffs.reduce(0, +)) / Double(diffs.count) < 3, "block average + Lanczos3 strays from a full Lanczos3"
        )
    }
}
