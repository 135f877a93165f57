import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Damage browsers tolerate in still PNGs is tolerated here too (libpng's benign errors and the
/// warnings it gives after the last row), whole and incremental decodes alike; damage that loses pixels
/// is not.
@Suite("PNG leniency")
struct PNGLeniencyTests {
    static let teal: [UInt8] = [0, 128, 128]

    func decodeBothWays(_ data: Data) throws -> [Image] {
        let whole = try PNGCoder().decode(data, options: DecodeOptions())
        let decoder = PNGCoder().makeIncrementalDecoder(options: DecodeOptions())
        var offset = 0
        while offset < data.count {
            try decoder.append(data[(data.startIndex + offset)..<(data.startIndex + min(data.count, offset + 97))])
            offset += 97
        }
        return [whole, try decoder.finish()]
    }

    @Test func extraCompressedDataAfterTheImageIsShown() throws {
        let size = PixelSize(width: 20, height: 10)
        for image in try decodeBothWays(HostileFiles.pngWithExtraCompressedData(size: size)) {
            #expect(image.width == 20 && image.height == 10 && !image.isIncomplete)
            #expect(Array(image.pixels.converted(to: .rgb8).bytes.suffix(3)) == Self.teal)
        }
    }

    @Test func anIDATAfterTheImageAndDataAfterIENDAreIgnored() throws {
        let data = HostileFiles.pngWithIDATAfterImageAndTrailingData(size: PixelSize(width: 16, height: 16))
        for image in try decodeBothWays(data) {
            #expect(image.width == 16 && !image.isIncomplete)
            #expect(Array(image.pixels.converted(to: .rgb8).bytes.prefix(3)) == Self.teal)
        }
    }

    @Test func missingRowsAndBadCriticalCRCsStillFail() throws {
        var bytes = [UInt8](
            HostileFiles.pngWithExtraCompressedData(size: PixelSize(width: 20, height: 10), extraRows: 0))
        // Flip a byte of the IDAT data: its CRC fails (a critical chunk), as libpng and browsers refuse.
        let idat = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("IDAT".utf8) })
        bytes[idat + 10] ^= 0x40
        #expect(throws: ImageError.self) { try PNGCoder().decode(Data(bytes), options: DecodeOptions()) }
        // A stream with fewer rows than the image: truncated data, an error without allowPartialImage.
        let short = HostileFiles.pngWithExtraCompressedData(size: PixelSize(width: 20, height: 10), extraRows: -5)
        #expect(throws: ImageError.self) { try PNGCoder().decode(short, options: DecodeOptions()) }
        #expect(try PNGCoder().decode(short, options: DecodeOptions(allowPartialImage: true)).isIncomplete)
    }
}

/// The APNG encoder streams frames from the lazy source and writes what it got when a frame is damaged.
@Suite("APNG streaming encoder")
struct APNGStreamingEncoderTests {
    @Test func aLazyAnimationRoundTrips() throws {
        let source = HostileFiles.manyFramesAPNG(frames: 200, canvas: PixelSize(width: 32, height: 24))
        let image = try APNGCoder().decode(source, options: DecodeOptions())
        let encoded = try APNGCoder().encode(image, as: .png, options: EncodeOptions())
        let again = try APNGCoder().decode(encoded, options: DecodeOptions())
        #expect(again.frameCount == 200 && again.width == 32 && again.height == 24)
        #expect(try again.frame(at: 1).pixels.converted(to: .rgba8).bytes.prefix(4) == [0, 0, 255, 255])
        #expect(try again.frame(at: 198).pixels.converted(to: .rgba8).bytes.prefix(4) == [255, 0, 0, 255])
        #expect(
            again.frameDurations.allSatisfy { max($0 - .milliseconds(100), .milliseconds(100) - $0) < .milliseconds(1) }
        )
    }

    @Test func aDamagedFrameEndsTheEncodedAnimationBeforeIt() throws {
        let source = HostileFiles.damagedFrameAPNG(frames: 6, canvas: PixelSize(width: 16, height: 16), damagedFrame: 3)
        let image = try APNGCoder().decode(source, options: DecodeOptions())
        let encoded = try APNGCoder().encode(image, as: .png, options: EncodeOptions())
        let again = try APNGCoder().decode(encoded, options: DecodeOptions(preloadAllFrames: true))
        #expect(again.frameCount == 3)
        #expect(image.frameCount == 3)
    }
}
