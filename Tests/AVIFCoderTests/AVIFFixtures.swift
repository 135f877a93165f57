import Foundation
import WebImageAVIFCoder
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// AVIF files made by avifenc from PNGs we write, and avifdec's decodes of them read back with our PNG
/// coder: the reference every decode test compares with.
struct AVIFTool {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "avif-test") }

    /// `pixels` written as a PNG named `name`; its path.
    func png(_ pixels: PixelBuffer, name: String = "input.png") throws -> String {
        try directory.write(try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions()), to: name)
            .path
    }

    /// avifenc's AVIF of the PNG files at `inputs`, made with `arguments`.
    func avifenc(_ inputs: [String], _ arguments: [String]) throws -> Data {
        let output = directory.file("out-\(UUID().uuidString).avif").path
        try ReferenceTool.run("avifenc", arguments + inputs + [output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// avifenc's AVIF of `pixels`.
    func avifenc(_ pixels: PixelBuffer, _ arguments: [String]) throws -> Data {
        try avifenc([try png(pixels)], arguments)
    }

    /// avifdec's 8-bit PNG of frame `index` of `avif`, decoded by our PNG coder (no orientation applied:
    /// avifdec 0.11 writes the stored pixels).
    func avifdec(_ avif: Data, index: Int = 0) throws -> PixelBuffer {
        let input = try directory.write(avif, to: "ref-\(UUID().uuidString).avif").path
        let output = directory.file("ref-\(UUID().uuidString).png").path
        try ReferenceTool.run("avifdec", ["--depth", "8", "--index", "\(index)", input, output])
        return try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: DecodeOptions())
            .pixels
    }
}
