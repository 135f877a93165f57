import Foundation
import WebImage

/// PNG decodes against libpng's simplified reader on the same files, in one run: a 12 MP photo as RGB
/// and as RGBA (an alpha ramp across it), saved by our coder (libpng's adaptive row filters, zlib level
/// 6), decoded whole and as a 256 px thumbnail (rows streamed into the downsampler). libpng must inflate
/// and reconstruct every row for a thumbnail too, so its whole decode is the floor of both.
func runPNGDecodeBenchmarks() throws {
    let photo = try Photos.twelveMegapixels()
    var rgba = [UInt8](repeating: 255, count: photo.width * photo.height * 4)
    for y in 0..<photo.height {
        for x in 0..<photo.width {
            let from = (y * photo.width + x) * 3, to = (y * photo.width + x) * 4
            rgba[to] = photo.bytes[from]
            rgba[to + 1] = photo.bytes[from + 1]
            rgba[to + 2] = photo.bytes[from + 2]
            rgba[to + 3] = UInt8(x * 255 / max(1, photo.width - 1))
        }
    }
    let withAlpha = PixelBuffer(width: photo.width, height: photo.height, layout: .rgba8, bytes: rgba)
    print("12 MP PNG decodes, best of N runs (ours and raw alternating); ratio = ours / libpng's simplified reader\n")
    print(row(["case", "ours ms", "raw ms", "ratio"]))
    for (label, pixels, alpha) in [("RGB", photo, false), ("RGBA", withAlpha, true)] {
        let png = try coders.png.encode(Image(pixels: pixels), as: .png, options: EncodeOptions())
        try compare(
            "PNG \(label) decode", runs: 7, ours: { _ = try coders.png.decode(png, options: DecodeOptions()) },
            raw: { _ = Raw.pngDecode(png, alpha: alpha) })
        try compare(
            "PNG \(label) 256 px thumbnail", runs: 7, ours: { _ = try coders.png.decode(png, options: thumbnail) },
            raw: { _ = Raw.pngDecode(png, alpha: alpha) })
    }
}
