import Foundation
import Testing
import WebImageCore
import WebImageHEIFCoder
import WebImageTestSupport

@Suite("HEIF metadata")
struct HEIFMetadataTests {
    // heif-enc 1.15 takes an ICC profile only from a PNG iCCP chunk (which libpng validates) and writes no
    // nclx box by default, so these files come from avifenc: libheif reads AVIF's colr boxes with the same code.
    @Test("an ICC profile (as a phone's Display P3) comes back")
    func icc() throws {
        let tool = try HEIFTool()
        let profile = Data((0..<400).map { UInt8(truncatingIfNeeded: $0 * 13) })
        let path = try tool.directory.write(profile, to: "p.icc").path
        let avif = try tool.avifenc(SyntheticPicture.make(width: 32, height: 32), ["-s", "10", "--icc", path])
        #expect(try HEIFCoder().decode(avif, options: DecodeOptions()).metadata.iccProfile == profile)
    }

    @Test("nclx code points are reported as CICP")
    func cicp() throws {
        let tool = try HEIFTool()
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: 32, height: 32), ["-s", "10", "--cicp", "12/13/6", "-r", "full"])
        let cicp = try HEIFCoder().decode(avif, options: DecodeOptions()).metadata.cicp
        #expect(cicp == CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 6, fullRange: true))
    }

    @Test("EXIF (as TIFF) and XMP items are read")
    func exifAndXMP() throws {
        let tool = try HEIFTool()
        let exif = Data(TestEXIF.tiff(orientation: 1))
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"></x:xmpmeta>".utf8)
        let exifPath = try tool.directory.write(exif, to: "e.exif").path
        let xmpPath = try tool.directory.write(xmp, to: "x.xmp").path
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: 16, height: 16), ["-s", "10", "--exif", exifPath, "--xmp", xmpPath])
        let metadata = try HEIFCoder().decode(avif, options: DecodeOptions()).metadata
        #expect(metadata.exif == exif)
        #expect(metadata.xmp == xmp)
    }
}
