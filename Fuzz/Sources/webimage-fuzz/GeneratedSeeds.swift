import Foundation
import WebImageBMPCoder
import WebImageCore
import WebImageGIFCoder
import WebImageICOCoder
import WebImageJPEGCoder
import WebImagePNGCoder
import WebImageTIFFCoder
import WebImageWebPCoder

/// Small valid files made by our own encoders, one folder per harness: seeds that exist even without the
/// shared corpus, and that cover the encoder options (interlacing, progressive scans, lossless, animation).
enum GeneratedSeeds {
    /// Edge of the generated images: big enough for several JPEG MCUs and WebP macroblocks, small enough
    /// that the fuzzer mutates quickly.
    static let edge = 24
    /// Frames in the generated animations.
    static let frameCount = 3

    static func write(to folder: URL) throws {
        let files = try make()
        for harness in FuzzHarness.allCases {
            let harnessFolder = folder.appendingPathComponent(harness.rawValue)
            try FileManager.default.createDirectory(at: harnessFolder, withIntermediateDirectories: true)
            for (name, data) in files[harness] ?? [] {
                try data.write(to: harnessFolder.appendingPathComponent(name))
            }
        }
    }

    private static func make() throws -> [FuzzHarness: [(String, Data)]] {
        let rgba = gradient(layout: .rgba8, phase: 0)
        let rgb = gradient(layout: .rgb8, phase: 0)
        let gray = gradient(layout: .gray8, phase: 0)
        let frames = (0..<frameCount).map {
            ImageFrame(pixels: gradient(layout: .rgba8, phase: $0 * 40), duration: .milliseconds(100))
        }
        let animation = Image(frames: frames, loopCount: 2)

        let pngs = [
            ("gen-rgba.png", try PNGCoder().encode(Image(pixels: rgba), as: .png, options: EncodeOptions())),
            (
                "gen-rgb-adam7.png",
                try PNGCoder().encode(Image(pixels: rgb), as: .png, options: EncodeOptions(progressive: true))
            ),
            ("gen-gray.png", try PNGCoder().encode(Image(pixels: gray), as: .png, options: EncodeOptions())),
        ]
        let apngs = [("gen-animated.png", try APNGCoder().encode(animation, as: .png, options: EncodeOptions()))]
        let jpegs = [
            ("gen-baseline.jpg", try JPEGCoder().encode(Image(pixels: rgb), as: .jpeg, options: EncodeOptions())),
            (
                "gen-progressive.jpg",
                try JPEGCoder().encode(
                    Image(pixels: rgb), as: .jpeg,
                    options: EncodeOptions(progressive: true))
            ),
            ("gen-gray.jpg", try JPEGCoder().encode(Image(pixels: gray), as: .jpeg, options: EncodeOptions())),
        ]
        let webps = [
            ("gen-lossy-alpha.webp", try WebPCoder().encode(Image(pixels: rgba), as: .webp, options: EncodeOptions())),
            (
                "gen-lossless.webp",
                try WebPCoder().encode(
                    Image(pixels: rgba), as: .webp,
                    options: EncodeOptions(lossless: true))
            ),
        ]
        let animatedWebPs = [
            ("gen-animated-lossy.webp", try WebPCoder().encode(animation, as: .webp, options: EncodeOptions())),
            (
                "gen-animated-lossless.webp",
                try WebPCoder().encode(
                    animation, as: .webp,
                    options: EncodeOptions(lossless: true))
            ),
        ]
        let gifs = [("gen-animated.gif", try GIFCoder().encode(animation, as: .gif, options: EncodeOptions()))]
        let tiffs = [
            ("gen-rgba-deflate.tif", try TIFFCoder().encode(Image(pixels: rgba), as: .tiff, options: EncodeOptions())),
            (
                "gen-gray-raw.tif",
                try TIFFCoder().encode(Image(pixels: gray), as: .tiff, options: EncodeOptions(compressionLevel: 0))
            ),
        ]
        let bmps = [
            ("gen-rgba.bmp", try BMPCoder().encode(Image(pixels: rgba), as: .bmp, options: EncodeOptions())),
            ("gen-rgb.bmp", try BMPCoder().encode(Image(pixels: rgb), as: .bmp, options: EncodeOptions())),
            ("gen-gray.bmp", try BMPCoder().encode(Image(pixels: gray), as: .bmp, options: EncodeOptions())),
        ]
        let icos = [("gen-png.ico", try ICOCoder().encode(Image(pixels: rgba), as: .ico, options: EncodeOptions()))]
        return [
            .png: pngs + apngs, .apng: apngs + pngs, .pngIncremental: pngs + apngs,
            .jpeg: jpegs, .jpegIncremental: jpegs,
            .webp: webps, .webpAnimated: animatedWebPs + webps, .webpIncremental: webps + animatedWebPs,
            .gif: gifs,
            .tiff: tiffs, .bmp: bmps, .ico: icos,
            .redisReplies: RedisReplyHarness.seeds(),
        ]
    }

    /// A diagonal gradient with a transparent corner, shifted by `phase` so animation frames differ.
    private static func gradient(layout: PixelLayout, phase: Int) -> PixelBuffer {
        var pixels = PixelBuffer(width: edge, height: edge, layout: layout)
        let channels = layout.bytesPerPixel
        for y in 0..<edge {
            for x in 0..<edge {
                let base = (y * edge + x) * channels
                let value = UInt8(truncatingIfNeeded: (x + y) * 10 + phase)
                for channel in 0..<channels { pixels.bytes[base + channel] = value &+ UInt8(channel * 60) }
                if layout == .rgba8 { pixels.bytes[base + 3] = x < edge / 4 && y < edge / 4 ? 0 : 255 }
            }
        }
        return pixels
    }
}
