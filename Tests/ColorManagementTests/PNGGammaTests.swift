import Foundation
import Testing
import WebImageColorManagement
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// `DecodeOptions.appliesPNGGamma`: PNGs with `gAMA` (and `cHRM`) but no `iCCP`/`sRGB`, converted to sRGB as
/// Chrome and Firefox show them. Expected pixels come from the formulas here (power curve, chromaticity
/// matrices, Bradford adaptation, sRGB's curve), not from Little CMS.
@Suite struct PNGGammaTests {
    /// Levels the conversion may differ from the formula: Little CMS's 8-bit transforms interpolate.
    static let tolerance = 2

    static func options(applying: Bool = true) -> DecodeOptions {
        var options = DecodeOptions()
        options.colorConversion = .sRGB(LittleCMSConverter())
        options.appliesPNGGamma = applying
        return options
    }

    // MARK: Formulas

    /// IEC 61966-2-1's encoding of linear light 0...1.
    static func sRGBEncode(_ linear: Double) -> Double {
        let l = min(max(linear, 0), 1)
        return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    /// A stored level decoded with the file's gamma (linear = v ^ (1 / gAMA)) and encoded as sRGB.
    static func expectedLevel(_ stored: UInt8, gamma: Double) -> Int {
        Int((sRGBEncode(pow(Double(stored) / 255, 1 / gamma)) * 255).rounded())
    }

    typealias Matrix = [[Double]]

    static func multiply(_ a: Matrix, _ b: Matrix) -> Matrix {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func apply(_ m: Matrix, _ v: [Double]) -> [Double] {
        (0..<3).map { i in (0..<3).reduce(0) { $0 + m[i][$1] * v[$1] } }
    }

    static func inverse(_ m: Matrix) -> Matrix {
        let det =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        let c: Matrix = [
            [
                m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2],
                m[0][1] * m[1][2] - m[0][2] * m[1][1],
            ],
            [
                m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0],
                m[0][2] * m[1][0] - m[0][0] * m[1][2],
            ],
            [
                m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1],
                m[0][0] * m[1][1] - m[0][1] * m[1][0],
            ],
        ]
        return c.map { $0.map { $0 / det } }
    }

    static func xyz(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }

    /// Linear RGB -> XYZ for these chromaticities (white maps to Y = 1).
    static func rgbToXYZ(_ c: GammaColorSpace.Chromaticities) -> Matrix {
        let r = xyz(c.redX, c.redY), g = xyz(c.greenX, c.greenY), b = xyz(c.blueX, c.blueY)
        let primaries: Matrix = [[r[0], g[0], b[0]], [r[1], g[1], b[1]], [r[2], g[2], b[2]]]
        let s = apply(inverse(primaries), xyz(c.whiteX, c.whiteY))
        return primaries.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    /// Bradford chromatic adaptation from one white to another.
    static func bradford(from source: [Double], to destination: [Double]) -> Matrix {
        let m: Matrix = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let s = apply(m, source), d = apply(m, destination)
        let scale: Matrix = [[d[0] / s[0], 0, 0], [0, d[1] / s[1], 0], [0, 0, d[2] / s[2]]]
        return multiply(inverse(m), multiply(scale, m))
    }

    /// The sRGB levels a pixel stored in the space of `chromaticities` and `gamma` shows as.
    static func expectedPixel(
        _ stored: [UInt8], gamma: Double, chromaticities c: GammaColorSpace.Chromaticities
    ) -> [Int] {
        let srgb = GammaColorSpace.Chromaticities.sRGB
        let toSRGB = multiply(
            inverse(rgbToXYZ(srgb)),
            multiply(
                bradford(from: xyz(c.whiteX, c.whiteY), to: xyz(srgb.whiteX, srgb.whiteY)),
                rgbToXYZ(c)))
        let linear = stored.map { pow(Double($0) / 255, 1 / gamma) }
        return apply(toSRGB, linear).map { Int((sRGBEncode($0) * 255).rounded()) }
    }

    // MARK: Files made here

    /// A PNG of `pixels` with `chunks` (type, payload) inserted after IHDR.
    static func png(_ pixels: PixelBuffer, chunks: [(String, [UInt8])]) throws -> Data {
        let plain = try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions())
        let afterHeader = 8 + 4 + 4 + 13 + 4  // signature, IHDR length, type, payload, CRC
        var bytes = [UInt8](plain)
        var inserted: [UInt8] = []
        for (type, payload) in chunks {
            let body = Array(type.utf8) + payload
            inserted += bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
        }
        bytes.insert(contentsOf: inserted, at: afterHeader)
        return Data(bytes)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    /// PNG's CRC-32 (ISO 3309), bit by bit: the files here are tiny.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    static func gAMA(_ gamma: Double) -> (String, [UInt8]) { ("gAMA", bigEndian(UInt32((gamma * 100_000).rounded()))) }

    static func cHRM(_ c: GammaColorSpace.Chromaticities) -> (String, [UInt8]) {
        let values = [c.whiteX, c.whiteY, c.redX, c.redY, c.greenX, c.greenY, c.blueX, c.blueY]
        return ("cHRM", values.flatMap { bigEndian(UInt32(($0 * 100_000).rounded())) })
    }

    /// 256 x 1 RGB: red climbs 0...255, green falls, blue climbs at half speed.
    static let ramp: PixelBuffer = {
        let bytes = (0..<256).flatMap { (v: Int) -> [UInt8] in [UInt8(v), UInt8(255 - v), UInt8(v / 2)] }
        return PixelBuffer(width: 256, height: 1, layout: .rgb8, bytes: bytes)
    }()

    static func maxDifference(_ pixels: PixelBuffer, _ expected: [Int]) -> Int {
        zip(pixels.packed().bytes, expected).map { abs(Int($0) - $1) }.max() ?? 0
    }

    // MARK: Tests

    @Test(arguments: [1.0, 0.45455, 0.7])
    func gammaAloneIsDecodedWithTheFileGamma(gamma: Double) throws {
        let data = try Self.png(Self.ramp, chunks: [Self.gAMA(gamma)])
        let image = try PNGCoder().decode(data, options: Self.options())
        #expect(image.pixels.layout == .rgb8)
        let expected = Self.ramp.bytes.map { Self.expectedLevel($0, gamma: gamma) }
        #expect(Self.maxDifference(image.pixels, expected) <= Self.tolerance)
        #expect(image.metadata.iccProfile == nil, "converted: no profile left")
        if gamma == 1.0 {
            // Linear data shows much lighter: stored 64 is 25% light, sRGB level 137.
            #expect(abs(Int(image.pixels.bytes[64 * 3]) - 137) <= Self.tolerance)
        }
    }

    /// Gray with gAMA decodes as RGB (R = G = B) when it is converted: Little CMS's gray-to-gray transform
    /// is up to 10 levels off in the darks of a linear file, its RGB one within a level. Without the
    /// option gray stays one channel.
    @Test func grayIsConvertedAsRGB() throws {
        let gray = PixelBuffer(width: 256, height: 1, layout: .gray8, bytes: (0..<256).map { UInt8($0) })
        let data = try Self.png(gray, chunks: [Self.gAMA(1.0)])
        let image = try PNGCoder().decode(data, options: Self.options())
        #expect(image.pixels.layout == .rgb8)
        let expected = gray.bytes.flatMap { (v: UInt8) -> [Int] in
            Array(repeating: Self.expectedLevel(v, gamma: 1.0), count: 3)
        }
        #expect(Self.maxDifference(image.pixels, expected) <= Self.tolerance)
        #expect(try PNGCoder().decode(data, options: Self.options(applying: false)).pixels == gray)
    }

    @Test func alphaIsKept() throws {
        let bytes = (0..<256).flatMap { (v: Int) -> [UInt8] in [UInt8(v), UInt8(v), UInt8(v), UInt8(255 - v)] }
        let rgba = PixelBuffer(width: 256, height: 1, layout: .rgba8, bytes: bytes)
        let image = try PNGCoder().decode(Self.png(rgba, chunks: [Self.gAMA(0.7)]), options: Self.options())
        #expect(image.pixels.layout == .rgba8)
        let expected = (0..<256).flatMap { v -> [Int] in
            let level = Self.expectedLevel(UInt8(v), gamma: 0.7)
            return [level, level, level, 255 - v]
        }
        #expect(Self.maxDifference(image.pixels, expected) <= Self.tolerance)
    }

    @Test func chromaticitiesMoveTheColours() throws {
        // Adobe RGB (1998)'s primaries and white, with a 2.2 power curve.
        let adobe = GammaColorSpace.Chromaticities(
            whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
            greenX: 0.21, greenY: 0.71, blueX: 0.15, blueY: 0.06)
        // And a space with another white (D50) and primaries, so the adaptation counts.
        let wide = GammaColorSpace.Chromaticities(
            whiteX: 0.3457, whiteY: 0.3585, redX: 0.68, redY: 0.31,
            greenX: 0.25, greenY: 0.68, blueX: 0.14, blueY: 0.07)
        let colours: [[UInt8]] = [
            [200, 30, 40], [40, 180, 60], [30, 40, 200], [128, 128, 128], [255, 255, 255],
            [0, 0, 0], [220, 200, 90], [90, 200, 220], [10, 20, 30],
        ]
        let pixels = PixelBuffer(width: colours.count, height: 1, layout: .rgb8, bytes: colours.flatMap { $0 })
        for (space, gamma) in [(adobe, 0.45455), (wide, 0.7)] {
            let data = try Self.png(pixels, chunks: [Self.gAMA(gamma), Self.cHRM(space)])
            let image = try PNGCoder().decode(data, options: Self.options())
            let expected = colours.flatMap { Self.expectedPixel($0, gamma: gamma, chromaticities: space) }
            #expect(Self.maxDifference(image.pixels, expected) <= Self.tolerance, "\(space)")
        }
        // Adobe RGB's saturated green is outside sRGB: it clips, and green stays near full.
        let green = PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: [0, 255, 0])
        let image = try PNGCoder().decode(
            Self.png(green, chunks: [Self.gAMA(0.45455), Self.cHRM(adobe)]),
            options: Self.options())
        #expect(image.pixels.bytes[1] >= 250)
    }

    @Test func offByDefaultAndWithoutAConverter() throws {
        let data = try Self.png(Self.ramp, chunks: [Self.gAMA(1.0)])
        #expect(DecodeOptions().appliesPNGGamma == false)
        #expect(try PNGCoder().decode(data, options: Self.options(applying: false)).pixels == Self.ramp)
        var noConverter = DecodeOptions()
        noConverter.appliesPNGGamma = true
        #expect(try PNGCoder().decode(data, options: noConverter).pixels == Self.ramp)
    }

    @Test func anSRGBOrICCPChunkWins() throws {
        // sRGB chunk (rendering intent 0) beside a gAMA of 1.0: the file is sRGB, stored values stand.
        let tagged = try Self.png(Self.ramp, chunks: [("sRGB", [0]), Self.gAMA(1.0)])
        #expect(try PNGCoder().decode(tagged, options: Self.options()).pixels == Self.ramp)
    }

    @Test func theSameNumbersGiveTheSameProfileBytes() throws {
        let converter = LittleCMSConverter()
        let space = GammaColorSpace(decodingExponent: 1 / 0.7)
        let first = try #require(converter.iccProfile(for: space))
        #expect(converter.iccProfile(for: space) == first)
        #expect(ImageMetadata(iccProfile: first).iccColorSpace == "RGB ")
        #expect(
            ImageMetadata(iccProfile: converter.iccProfile(for: GammaColorSpace(decodingExponent: 1, isGray: true)))
                .iccColorSpace == "GRAY")
        // Numbers that describe no space give no profile.
        #expect(converter.iccProfile(for: GammaColorSpace(decodingExponent: .nan)) == nil)
        #expect(converter.iccProfile(for: GammaColorSpace(decodingExponent: 0)) == nil)
        let flat = GammaColorSpace.Chromaticities(
            whiteX: 0.3127, whiteY: 0, redX: 0.64, redY: 0.33,
            greenX: 0.3, greenY: 0.6, blueX: 0.15, blueY: 0.06)
        #expect(converter.iccProfile(for: GammaColorSpace(decodingExponent: 1, chromaticities: flat)) == nil)
    }

    /// PngSuite's gamma files (g03...g25: gAMA 0.35 to 2.5, gray 16-bit, RGB 8-bit, palette 4-bit): the
    /// converted pixels against the formula applied to the stored values (16-bit reduced to 8, as decoded).
    @Test func pngSuiteGammaFiles() throws {
        let files = Corpus.entries(format: "png", folder: "conformance/png/pngsuite-g")
        guard !files.isEmpty else { return }  // no corpus: the files made above cover the formulas
        for file in files {
            let data = try Data(contentsOf: file.url)
            let name = file.url.lastPathComponent
            // g03 is gAMA 0.35, g04 0.45, g05 0.55, g07 0.7, g10 1.0, g25 2.5.
            let code = Int(name.dropFirst("pngsuite-g".count).prefix(2))!
            let gamma = [3: 0.35, 4: 0.45, 5: 0.55, 7: 0.7, 10: 1.0, 25: 2.5][code]!
            let stored = try PNGCoder().decode(data, options: Self.options(applying: false))
            let shown = try PNGCoder().decode(data, options: Self.options())
            // Gray is converted as RGB (see grayIsConvertedAsRGB).
            let storedLevels =
                stored.pixels.layout == .gray8
                ? stored.pixels.packed().bytes.flatMap { [$0, $0, $0] } : stored.pixels.packed().bytes
            let expected = storedLevels.map { Self.expectedLevel($0, gamma: gamma) }
            #expect(Self.maxDifference(shown.pixels, expected) <= Self.tolerance, "\(name)")
        }
    }
}
