import Foundation
import WebImageCore
import WebImageHEIFCoder
import WebImagePNGCoder
import WebImageTestSupport

/// HEIC files made by heif-enc (and AVIFs by avifenc, which libheif reads as HEIF too) from PNGs we
/// write, and heif-convert's PNG decodes of them read back with our PNG coder.
struct HEIFTool {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "heif-test") }

    /// `pixels` written as a PNG (with `icc` as its iCCP profile when given); its path.
    func png(_ pixels: PixelBuffer, icc: Data? = nil) throws -> String {
        let data = try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions(iccProfile: icc))
        return try directory.write(data, to: "in-\(UUID().uuidString).png").path
    }

    /// heif-enc's HEIC of `pixels` made with `arguments`.
    func heifEnc(_ pixels: PixelBuffer, _ arguments: [String], icc: Data? = nil) throws -> Data {
        let output = directory.file("out-\(UUID().uuidString).heic").path
        try ReferenceTool.run("heif-enc", arguments + [try png(pixels, icc: icc), "-o", output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// avifenc's AVIF of `pixels` (libheif decodes it through its AV1 plugin; avifenc can write grids,
    /// `irot`/`imir`, EXIF and XMP, which heif-enc 1.15 cannot).
    func avifenc(_ pixels: PixelBuffer, _ arguments: [String]) throws -> Data {
        let output = directory.file("out-\(UUID().uuidString).avif").path
        try ReferenceTool.run("avifenc", arguments + [try png(pixels), output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// heif-convert's PNG of `file`'s primary image, decoded by our PNG coder.
    func heifConvert(_ file: Data, extension ext: String = "heic") throws -> PixelBuffer {
        let input = try directory.write(file, to: "ref-\(UUID().uuidString).\(ext)").path
        let output = directory.file("ref-\(UUID().uuidString).png").path
        try ReferenceTool.run("heif-convert", [input, output])
        return try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: DecodeOptions())
            .pixels
    }
}
