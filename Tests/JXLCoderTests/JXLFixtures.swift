import Foundation
import WebImageCore
import WebImageJXLCoder
import WebImagePNGCoder
import WebImageTestSupport

/// JPEG XL files made by cjxl from PNGs, APNGs and JPEGs we write, and djxl's PNG decodes of them read
/// back with our PNG coder.
struct JXLTool {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "jxl-test") }

    /// cjxl's file from `input` (an encoded PNG, APNG or JPEG with extension `ext`) made with `arguments`.
    func cjxl(_ input: Data, ext: String = "png", _ arguments: [String]) throws -> Data {
        let source = try directory.write(input, to: "in-\(UUID().uuidString).\(ext)").path
        let output = directory.file("out-\(UUID().uuidString).jxl").path
        try ReferenceTool.run("cjxl", [source, output] + arguments)
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// cjxl's file of `pixels` (written as PNG).
    func cjxl(_ pixels: PixelBuffer, _ arguments: [String]) throws -> Data {
        try cjxl(try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions()), arguments)
    }

    /// djxl's decode of `jxl` to `ext` (PNG pixels read by our PNG coder, or the bytes of a JPEG).
    func djxl(_ jxl: Data, ext: String = "png") throws -> Data {
        let input = try directory.write(jxl, to: "ref-\(UUID().uuidString).jxl").path
        let output = directory.file("ref-\(UUID().uuidString).\(ext)").path
        try ReferenceTool.run("djxl", [input, output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    func djxlPixels(_ jxl: Data) throws -> PixelBuffer {
        try PNGCoder().decode(try djxl(jxl), options: DecodeOptions()).pixels
    }
}
