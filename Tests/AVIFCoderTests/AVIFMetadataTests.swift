import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

@Suite("AVIF metadata")
struct AVIFMetadataTests {
    @Test("ICC, EXIF (as TIFF) and XMP given to avifenc come back in the metadata")
    func iccExifXmp() throws {
        let tool = try AVIFTool()
        let icc = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let exif = Data(TestEXIF.tiff(orientation: 1))
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"></x:xmpmeta>".utf8)
        let iccPath = try tool.directory.write(icc, to: "p.icc").path
        let exifPath = try tool.directory.write(exif, to: "e.exif").path
        let xmpPath = try tool.directory.write(xmp, to: "x.xmp").path
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: 16, height: 16),
            ["-s", "10", "--icc", iccPath, "--exif", exifPath, "--xmp", xmpPath])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(image.metadata.iccProfile == icc)
        #expect(image.metadata.exif == exif)
        #expect(image.metadata.xmp == xmp)
    }

    @Test("the nclx code points and range are reported as CICP")
    func cicp() throws {
        let tool = try AVIFTool()
        let avif = try tool.avifenc(
            SyntheticPicture.make(width: 16, height: 16),
            ["-s", "10", "--cicp", "12/13/6", "-r", "limited"])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        #expect(
            image.metadata.cicp
                == CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 6, fullRange: false))
        #expect(image.metadata.iccProfile == nil)
    }

    @Test("an EXIF orientation tag does not turn the picture: irot/imir alone do")
    func exifOrientationIgnored() throws {
        let tool = try AVIFTool()
        let exifPath = try tool.directory.write(Data(TestEXIF.tiff(orientation: 6)), to: "e.exif").path
        let avif = try tool.avifenc(SyntheticPicture.make(width: 20, height: 10), ["-s", "10", "--exif", exifPath])
        let image = try AVIFCoder().decode(avif, options: DecodeOptions())
        // avifenc 0.11 turns an EXIF orientation into irot/imir (avifImageSetMetadataExif); the picture is
        // turned once, by those, whatever the EXIF says.
        let stored = try AVIFCoder().decode(avif, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        #expect(image.width == 10 && image.height == 20)
        #expect(image.pixels == stored.pixels.applyingOrientation(.right))
    }
}
