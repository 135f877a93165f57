import Testing
import WebImageCore
import WebImageTransformers

/// Rotation and rounded coverage against Pillow's pixels in geometry-reference.tsv
/// (scripts/reference/geometry-reference.py).
@Suite struct GeometryReferenceTests {
    @Test func theReferenceFileIsThereAndThePatternMatches() throws {
        let pattern = try #require(GeometryFixtures.references.first { $0.kind == "pattern" })
        #expect(pattern.bytes == GeometryFixtures.pattern().bytes)
        #expect(GeometryFixtures.references.filter { $0.kind == "rotate" }.count == 5)
    }

    /// Where both sample inside the source, values agree within 3 (pixman, which we rotate with, weighs
    /// bilinear neighbours in 1/128ths, Pillow in doubles and truncates: 3 seen on this pattern, whose
    /// neighbours jump by up to 255); where the
    /// pixel centre maps outside, both are exactly the fill; the one-pixel edge band (Pillow aliased, ours
    /// antialiased) lies between the fill and the image, which is checked by the size alone.
    @Test func arbitraryAnglesMatchPillowsBilinearRotation() throws {
        let fill = RGBAColor(red: 10, green: 200, blue: 30)
        for reference in GeometryFixtures.references where reference.kind == "rotate" {
            let degrees = try #require(Double(reference.parameter))
            let output = try RotateTransformer(degrees: degrees, background: fill).transformFrame(
                GeometryFixtures.pattern())
            #expect(output.width == reference.width && output.height == reference.height, "\(degrees)")
            #expect(output.layout == .rgb8)
            guard output.width == reference.width && output.height == reference.height else { continue }
            var worstInside = 0, outsideMismatches = 0, insideCount = 0
            for i in 0..<(reference.width * reference.height) {
                for c in 0..<3 {
                    let difference = abs(Int(output.bytes[i * 3 + c]) - Int(reference.bytes[i * 3 + c]))
                    switch reference.classes[i] {
                    case "i": worstInside = max(worstInside, difference); insideCount += 1
                    case "o": if difference != 0 { outsideMismatches += 1 }
                    default: break
                    }
                }
            }
            #expect(insideCount > 0)
            #expect(worstInside <= 3, "\(degrees) degrees: inside pixels differ by up to \(worstInside)")
            #expect(outsideMismatches == 0, "\(degrees) degrees")
        }
    }

    /// Coverage from the signed distance against Pillow's 8x supersampled drawing: within 10 % (26 of 255)
    /// on every pixel (20 seen), and on average within 1 level (0.9 seen); interior pixels are opaque, far corners transparent.
    @Test func roundedCornersCoverWhatASupersampledDrawingCovers() throws {
        for reference in GeometryFixtures.references where reference.kind == "rounded" || reference.kind == "circle" {
            let input = PixelBuffer.filledForTest(width: reference.width, height: reference.height)
            let output =
                reference.kind == "circle"
                ? try CircleTransformer().transformFrame(input)
                : try RoundedCornersTransformer(radius: try #require(Double(reference.parameter))).transformFrame(input)
            #expect(output.layout == .rgba8 && output.width == reference.width && output.height == reference.height)
            let alpha = GeometryFixtures.alpha(output)
            let differences = zip(alpha, reference.bytes).map { abs(Int($0) - Int($1)) }
            let worst = differences.max() ?? 0
            let mean = Double(differences.reduce(0, +)) / Double(differences.count)
            #expect(
                worst <= 26,
                "\(reference.kind) \(reference.parameter) \(reference.width)x\(reference.height): worst \(worst)")
            #expect(mean <= 1, "\(reference.kind) \(reference.parameter): mean \(mean)")
            #expect(alpha[0] == 0)
            #expect(alpha[(reference.height / 2) * reference.width + reference.width / 2] == 255)
            #expect(alpha.contains { $0 > 0 && $0 < 255 }, "edges are antialiased")
        }
    }
}

extension PixelBuffer {
    /// An opaque mid-gray RGB buffer.
    static func filledForTest(width: Int, height: Int, value: UInt8 = 128) -> PixelBuffer {
        PixelBuffer(
            width: width, height: height, layout: .rgb8, bytes: [UInt8](repeating: value, count: width * height * 3))
    }
}
