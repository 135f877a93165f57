import Foundation
import Testing
import WebImageBMPCoder
import WebImageCore
import WebImageTestSupport
import WebImageTesting

/// A BMP file made field by field, for headers no encoder writes.
func handMadeBMP(
    width: Int32, height: Int32, bits: UInt16 = 24, compression: UInt32 = 0, headerSize: UInt32 = 40,
    colorsUsed: UInt32 = 0, pixelOffset: UInt32? = nil, payload: [UInt8] = []
) -> Data {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }
    var dib =
        le32(headerSize) + le32(UInt32(bitPattern: width)) + le32(UInt32(bitPattern: height)) + le16(1) + le16(bits)
    dib += le32(compression) + le32(UInt32(payload.count)) + le32(2835) + le32(2835) + le32(colorsUsed) + le32(0)
    dib += [UInt8](repeating: 0, count: Int(headerSize) - 40)
    let offset = pixelOffset ?? UInt32(14 + dib.count)
    return Data([0x42, 0x4D] + le32(offset + UInt32(payload.count)) + le32(0) + le32(offset) + dib + payload)
}

/// Files from strangers: every decode ends in an image or a typed error, within the budgets.
@Suite("BMP hostile input ends in typed errors")
struct BMPHostileInputTests {
    @Test func theCoderContractHolds() throws {
        let coder = BMPCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .bmp)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func absurdDimensionsAreRefusedFromTheHeader() {
        let data = handMadeBMP(width: 1_000_000, height: -1_000_000, payload: [1, 2, 3, 4])
        #expect(
            throws: ImageError.imageTooLarge(
                width: 1_000_000, height: 1_000_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try BMPCoder().decode(data, options: DecodeOptions())
        }
    }

    @Test func theMostNegativeHeightAndZeroWidthAreBadData() {
        #expect(throws: ImageError.self) {
            try BMPCoder().decode(handMadeBMP(width: 4, height: Int32.min), options: DecodeOptions())
        }
        #expect(throws: ImageError.self) {
            try BMPCoder().decode(handMadeBMP(width: 0, height: 4), options: DecodeOptions())
        }
        #expect(throws: ImageError.self) {
            try BMPCoder().decode(handMadeBMP(width: -4, height: 4), options: DecodeOptions())
        }
    }

    @Test func unknownHeadersAndDepthsAreBadData() {
        #expect(throws: ImageError.self) {
            try BMPCoder().decode(
                handMadeBMP(width: 4, height: 4, bits: 7, payload: [UInt8](repeating: 0, count: 64)),
                options: DecodeOptions())
        }
        #expect(throws: ImageError.self) {
            try BMPCoder().decode(
                handMadeBMP(width: 4, height: 4, compression: 9, payload: [UInt8](repeating: 0, count: 64)),
                options: DecodeOptions())
        }
        #expect(throws: ImageError.unsupportedFormat(.bmp)) {
            try BMPCoder().decode(
                handMadeBMP(width: 4, height: 4, compression: 4, payload: [0xFF, 0xD8, 0xFF]), options: DecodeOptions())
        }
    }

    @Test func missingRowsAreBadDataUnlessPartialImagesAreAllowed() throws {
        // 10 rows of 4 pixels (12 bytes a row), 4 rows present; bottom-up, so the present rows are the bottom ones.
        let data = handMadeBMP(width: 4, height: 10, payload: [UInt8](repeating: 0x80, count: 48))
        #expect(throws: ImageError.self) { try BMPCoder().decode(data, options: DecodeOptions()) }
        let partial = try BMPCoder().decode(data, options: DecodeOptions(allowPartialImage: true))
        #expect(partial.isIncomplete)
        #expect(partial.pixels.rgba(x: 0, y: 9).a == 255)
        #expect(partial.pixels.rgba(x: 0, y: 0).a == 0)
    }

    @Test func aPixelOffsetPastTheEndIsBadData() {
        let data = handMadeBMP(width: 2, height: 2, pixelOffset: 1_000_000, payload: [UInt8](repeating: 0, count: 16))
        #expect(throws: ImageError.self) { try BMPCoder().decode(data, options: DecodeOptions()) }
    }

    @Test func rleRunsPastTheImageAndDeltasFarAwayStayInside() throws {
        // Palette of two colours, then: a run of 255 pixels on a 4-wide image, a delta of (255, 255), EOB.
        let palette: [UInt8] = [0, 0, 255, 0, 0, 255, 0, 0]
        let data = handMadeBMP(
            width: 4, height: 3, bits: 8, compression: 1, colorsUsed: 2, pixelOffset: 14 + 40 + 8,
            payload: palette + [255, 1, 0, 2, 255, 255, 0, 1])
        let image = try BMPCoder().decode(data, options: DecodeOptions())
        #expect((image.width, image.height) == (4, 3))
        #expect(image.pixels.rgba(x: 0, y: 2) == (0, 255, 0, 255))  // palette entry 1, stored B, G, R
        #expect(image.pixels.rgba(x: 0, y: 0).a == 0)  // never reached by the stream: transparent
    }

    @Test func anRLEStreamWithoutItsEndIsBadDataUnlessPartial() throws {
        let palette: [UInt8] = [0, 0, 255, 0, 0, 255, 0, 0]
        let data = handMadeBMP(
            width: 4, height: 3, bits: 8, compression: 1, colorsUsed: 2, pixelOffset: 14 + 40 + 8,
            payload: palette + [4, 1, 0, 0])
        #expect(throws: ImageError.self) { try BMPCoder().decode(data, options: DecodeOptions()) }
        #expect(try BMPCoder().decode(data, options: DecodeOptions(allowPartialImage: true)).isIncomplete)
    }

    @Test func truncatedAndBitFlippedCopiesEndInAnImageOrATypedError() throws {
        let folder = ReferenceFixture.all(in: "BMPCoderTests")
        for fixture in folder where fixture.comparison != .error {
            let data = try fixture.data()
            for copy in DamagedCopies.truncations(of: data) + DamagedCopies.bitFlips(of: data, copies: 100, keep: 2) {
                do {
                    let image = try BMPCoder().decode(copy, options: DecodeOptions(maxPixelCount: 1_000_000))
                    #expect(image.width * image.height <= 1_000_000)
                } catch {
                    #expect(!error.description.isEmpty)
                }
            }
        }
    }

    @Test func aCancelledTokenStopsTheDecode() throws {
        let data = try BMPCoder().encode(
            Image(pixels: SyntheticPicture.make(width: 64, height: 64)), as: .bmp, options: EncodeOptions())
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try BMPCoder().decode(data, options: DecodeOptions(cancellation: token))
        }
    }
}

/// The hostile BMP of `HostileFiles` (also measured by scripts/bench/hostile-bench).
@Suite("BMP hostile files stay within bounds")
struct BMPHostileFilesTests {
    @Test func anEmptyRLECanvasIsRefusedOverThePixelLimitAndTransparentUnderIt() throws {
        let data = HostileFiles.emptyRLEBMP(size: PixelSize(10_000))
        #expect(data.count < 100)
        #expect(throws: ImageError.imageTooLarge(width: 10_000, height: 10_000, limit: 50_000_000)) {
            try BMPCoder().decode(data, options: DecodeOptions(maxPixelCount: 50_000_000))
        }
        let small = try BMPCoder().decode(HostileFiles.emptyRLEBMP(size: PixelSize(300)), options: DecodeOptions())
        #expect(small.pixels.layout == .rgba8)
        #expect(small.pixels.rgba(x: 150, y: 150).a == 0)
    }
}
