import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

/// `irot` and `imir` made by avifenc on a lossless picture, checked against the transforms applied here
/// step by step as ISO/IEC 23008-12 defines them (rotation first, then the mirror), independent of Core's
/// orientation code.
@Suite("AVIF irot/imir")
struct AVIFTransformTests {
    /// One quarter turn anticlockwise.
    static func turnedAnticlockwise(_ p: PixelBuffer) -> PixelBuffer {
        var out = PixelBuffer(width: p.height, height: p.width, layout: .rgb8)
        for y in 0..<p.height {
            for x in 0..<p.width {
                // Stored (x, y) lands at column y, row (width - 1 - x).
                let (r, g, b, _) = p.rgba(x: x, y: y)
                let o = ((p.width - 1 - x) * out.width + y) * 3
                out.bytes[o] = r; out.bytes[o + 1] = g; out.bytes[o + 2] = b
            }
        }
        return out
    }

    /// imir mode 0 exchanges top and bottom; mode 1 left and right.
    static func mirrored(_ p: PixelBuffer, mode: Int) -> PixelBuffer {
        var out = PixelBuffer(width: p.width, height: p.height, layout: .rgb8)
        for y in 0..<p.height {
            for x in 0..<p.width {
                let (sx, sy) = mode == 0 ? (x, p.height - 1 - y) : (p.width - 1 - x, y)
                let (r, g, b, _) = p.rgba(x: sx, y: sy)
                let o = (y * p.width + x) * 3
                out.bytes[o] = r; out.bytes[o + 1] = g; out.bytes[o + 2] = b
            }
        }
        return out
    }

    @Test(
        "every irot angle with and without each imir mode shows the picture as the standard says",
        arguments: [0, 1, 2, 3], [nil, 0, 1] as [Int?])
    func transforms(angle: Int, mirror: Int?) throws {
        let tool = try AVIFTool()
        let source = SyntheticPicture.make(width: 24, height: 16)
        var arguments = ["-l", "-s", "10", "--irot", "\(angle)"]
        if let mirror { arguments += ["--imir", "\(mirror)"] }
        let avif = try tool.avifenc(source, arguments)
        var expected = source
        for _ in 0..<angle { expected = Self.turnedAnticlockwise(expected) }
        if let mirror { expected = Self.mirrored(expected, mode: mirror) }

        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.width == expected.width && image.height == expected.height)
        #expect(SyntheticPicture.maxDifference(image.pixels, expected) == 0)
        #expect(image.isOrientationApplied)

        // Unapplied: the stored pixels, with the orientation reported.
        let stored = try AVIFCoder().decode(avif, options: DecodeOptions(applyOrientation: false))
        #expect(SyntheticPicture.maxDifference(stored.pixels, source) == 0)
        #expect(!stored.isOrientationApplied)
        #expect(SyntheticPicture.maxDifference(stored.pixels.applyingOrientation(stored.orientation), expected) == 0)
    }

    @Test("a thumbnail fits the requested size once upright")
    func thumbnailOfRotated() throws {
        let tool = try AVIFTool()
        let avif = try tool.avifenc(SyntheticPicture.make(width: 200, height: 100), ["-s", "10", "--irot", "1"])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions(thumbnailPixelSize: PixelSize(50)))
        #expect(image.width == 25 && image.height == 50)
    }
}
