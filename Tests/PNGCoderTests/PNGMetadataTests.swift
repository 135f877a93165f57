import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// ICC (iCCP), EXIF (eXIf) and XMP (iTXt) chunks on the image, and the EXIF orientation applied as
/// browsers do for PNG.
@Suite("PNG metadata and orientation")
struct PNGMetadataTests {
    let coder = PNGCoder()

    /// A profile libpng accepts on write and on read: a 128-byte header (RGB display, XYZ, D50), an empty
    /// tag table and incompressible padding (libpng's reader refuses an iCCP chunk under 92 bytes as "too
    /// short", which a bare header compresses to).
    static let profile: [UInt8] = {
        var profile = [UInt8](repeating: 0, count: 256)
        profile[2] = 1
        profile[8...11] = [0x02, 0x10, 0, 0]
        profile[12...15] = Array("mntr".utf8)[...]
        profile[16...19] = Array("RGB ".utf8)[...]
        profile[20...23] = Array("XYZ ".utf8)[...]
        profile[36...39] = Array("acsp".utf8)[...]
        profile[68...79] = [0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D]
        var generator = SeededGenerator(seed: 3)
        for index in 132..<256 { profile[index] = UInt8.random(in: 0...255, using: &generator) }
        return profile
    }()

    static let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)

    /// `source` as a PNG with an ICC profile, and an eXIf chunk (before IDAT, or before IEND when `exifLate`)
    /// and an XMP iTXt chunk inserted by hand.
    func png(
        _ source: PixelBuffer, orientation: UInt16, exifLate: Bool = false, interlaced: Bool = false
    ) throws -> Data {
        let plain = [UInt8](
            try coder.encode(
                Image(pixels: source), as: .png,
                options: EncodeOptions(progressive: interlaced, iccProfile: Data(Self.profile))))
        let exif = PNGChunk.make("eXIf", TestEXIF.tiff(orientation: orientation))
        let itxt = PNGChunk.make("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Self.xmp)
        let afterHeader = 8 + 25
        var bytes = Array(plain.prefix(afterHeader)) + itxt
        if exifLate {
            bytes += plain[afterHeader..<(plain.count - 12)] + exif + plain.suffix(12)
        } else {
            bytes += exif + plain[afterHeader...]
        }
        return Data(bytes)
    }

    @Test func iccExifAndXMPAreOnTheImage() throws {
        let image = try coder.decode(try png(TestPictures.quadrants(), orientation: 1), options: DecodeOptions())
        #expect(image.metadata.iccProfile == Data(Self.profile))
        #expect(image.metadata.exif == Data(TestEXIF.tiff(orientation: 1)))
        #expect(image.metadata.xmp == Data(Self.xmp))
        #expect(image.pixels == TestPictures.quadrants())
    }

    @Test(arguments: ImageOrientation.allCases, [false, true])
    func orientationIsAppliedAndReported(orientation: ImageOrientation, exifLate: Bool) throws {
        let source = TestPictures.quadrants()
        let data = try png(source, orientation: UInt16(orientation.rawValue), exifLate: exifLate)
        let upright = try coder.decode(data, options: DecodeOptions())
        #expect(upright.orientation == orientation && upright.isOrientationApplied)
        #expect(upright.pixels == source.applyingOrientation(orientation))
        let stored = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == orientation && !stored.isOrientationApplied)
        #expect(stored.pixels == source)
        // Fed in pieces, the same image.
        let (incremental, _) = try IncrementalFeed.run(
            coder.makeIncrementalDecoder(options: DecodeOptions()), data, chunk: 100)
        #expect(incremental.pixels == upright.pixels && incremental.metadata == upright.metadata)
    }

    @Test(arguments: [ImageOrientation.up, .right, .leftMirrored, .down], [false, true])
    func thumbnailsFitTheLimitOnceUpright(orientation: ImageOrientation, interlaced: Bool) throws {
        let source = PNGThumbnailAndEncodeTests.busy(width: 240, height: 160, layout: .rgb8)
        let data = try png(source, orientation: UInt16(orientation.rawValue), interlaced: interlaced)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 90, height: 40), preserveAspectRatio: false)
        let thumbnail = try coder.decode(data, options: options)
        let reference = options.resizedToOutput(try coder.decode(data, options: DecodeOptions()).pixels)
        #expect(thumbnail.width == reference.width && thumbnail.height == reference.height)
        #expect(thumbnail.width == 90 && thumbnail.height == 40)
        // Streamed rows are downsampled before they are turned: the same picture within rounding.
        #expect(TestPictures.maxDifference(thumbnail.pixels, reference) <= 1)
    }

    @Test func theCorpusOrientationFileShowsUpright() throws {
        guard let root = Corpus.root else { return }
        let data = try Data(contentsOf: root.appendingPathComponent("conformance/png/gen-exif-orientation-6.png"))
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.width == 64 && image.height == 48)
        // Red top-left, green top-right, blue bottom-left, yellow bottom-right once upright (below the
        // white band at the top).
        func bright(_ x: Int, _ y: Int) -> [Bool] {
            let p = image.pixels.rgba(x: x, y: y)
            return [p.r > 128, p.g > 128, p.b > 128]
        }
        #expect(bright(16, 20) == [true, false, false])
        #expect(bright(48, 20) == [false, true, false])
        #expect(bright(16, 40) == [false, false, true])
        #expect(bright(48, 40) == [true, true, false])
    }
}
