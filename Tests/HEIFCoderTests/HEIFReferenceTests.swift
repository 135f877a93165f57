import Foundation
import Testing
import WebImageCore
import WebImageHEIFCoder
import WebImageTestSupport

/// Files made by heif-enc (and avifenc), decoded by HEIFCoder and by heif-convert (PNG, read by our PNG
/// coder): both go through libheif's decoding and colour conversion, so every pixel must be identical.
@Suite("HEIF against heif-convert")
struct HEIFReferenceTests {
    @Test("opaque and alpha stills match heif-convert pixel for pixel", arguments: [PixelLayout.rgb8, .rgba8])
    func stills(layout: PixelLayout) throws {
        let tool = try HEIFTool()
        let heic = try tool.heifEnc(SyntheticPicture.make(width: 96, height: 64, layout: layout), ["-q", "60"])
        #expect(HEIFCoder().canDecode(heic))
        let image = try HEIFCoder().decode(heic, options: DecodeOptions())
        #expect(image.format == .heic)
        #expect(image.pixels.layout == layout)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.heifConvert(heic)) == 0)
    }

    @Test(
        "a 2x2 grid primary image (written by avifenc; libheif's grid code is the same for every codec) is assembled like heif-convert does"
    )
    func grid() throws {
        let tool = try HEIFTool()
        let avif = try tool.avifenc(SyntheticPicture.make(width: 128, height: 128), ["-g", "2x2", "-s", "10"])
        let image = try HEIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.width == 128 && image.height == 128)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.heifConvert(avif, extension: "avif")) == 0)
    }

    @Test(
        "irot/imir are applied as the standard says (the same pixels AVIFCoder's own code gives)",
        arguments: [(1, nil), (2, 0), (3, 1), (0, 1)] as [(Int, Int?)])
    func transformations(angle: Int, mirror: Int?) throws {
        let tool = try HEIFTool()
        let source = SyntheticPicture.make(width: 24, height: 16)
        var arguments = ["-l", "-s", "10", "--irot", "\(angle)"]
        if let mirror { arguments += ["--imir", "\(mirror)"] }
        let avif = try tool.avifenc(source, arguments)
        let image = try HEIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.orientation == .up && image.isOrientationApplied)
        #expect(SyntheticPicture.maxDifference(image.pixels, try tool.heifConvert(avif, extension: "avif")) == 0)
        // Lossless: the picture turned; its corners tell the turn.
        let turned = angle % 2 == 1
        #expect(image.width == (turned ? 16 : 24))
        let corner = image.pixels.rgba(x: 0, y: 0)
        var expected = source
        for _ in 0..<angle { expected = Self.turnedAnticlockwise(expected) }
        if let mirror {
            let x = mirror == 1 ? expected.width - 1 : 0, y = mirror == 0 ? expected.height - 1 : 0
            let e = expected.rgba(x: x, y: y)
            #expect(corner == e)
        } else {
            let e = expected.rgba(x: 0, y: 0)
            #expect(corner == e)
        }
    }

    static func turnedAnticlockwise(_ p: PixelBuffer) -> PixelBuffer {
        var out = PixelBuffer(width: p.height, height: p.width, layout: .rgb8)
        for y in 0..<p.height {
            for x in 0..<p.width {
                let (r, g, b, _) = p.rgba(x: x, y: y)
                let o = ((p.width - 1 - x) * out.width + y) * 3
                out.bytes[o] = r; out.bytes[o + 1] = g; out.bytes[o + 2] = b
            }
        }
        return out
    }
}

@Suite("HEIF premultiplied alpha")
struct HEIFPremultipliedTests {
    @Test("a file marked premultiplied (heif-enc --premultiplied-alpha) comes back with straight alpha")
    func premultiplied() throws {
        let tool = try HEIFTool()
        // Colour no brighter than alpha, as premultiplied pixels are.
        var source = SyntheticPicture.make(width: 64, height: 32, layout: .rgba8)
        for o in stride(from: 0, to: source.bytes.count, by: 4) {
            for c in 0..<3 { source.bytes[o + c] = min(source.bytes[o + c], source.bytes[o + 3]) }
        }
        let lossless = ["-L", "-p", "chroma=444", "--matrix_coefficients=0"]
        let marked = try tool.heifEnc(source, lossless + ["--premultiplied-alpha"])
        let plain = try tool.heifEnc(source, lossless)
        let straight = try HEIFCoder().decode(marked, options: DecodeOptions()).pixels
        let stored = try HEIFCoder().decode(plain, options: DecodeOptions()).pixels
        #expect(SyntheticPicture.maxDifference(stored, source) <= HEIFEncodingTests.losslessTolerance)
        // Divided by alpha: where alpha is high enough for the division to be exact to a few steps.
        var checked = 0
        for y in 0..<source.height {
            for x in 0..<source.width {
                let p = stored.rgba(x: x, y: y), q = straight.rgba(x: x, y: y)
                guard p.a >= 64 else { continue }
                let expected = min(255, (Int(p.r) * 255 + Int(p.a) / 2) / Int(p.a))
                #expect(abs(Int(q.r) - expected) <= 4, "(\(x), \(y))")
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
