import Foundation
import Testing
import WebImage

/// Core's option values (`DecodeOptions`, `EncodeOptions`) are plain settings a user fills in; whatever they
/// hold, every built-in coder either works or throws `ImageError`, never stops the process.
@Suite struct CodingOptionsAuditTests {
    static let coders: [(any ImageCoder, ImageFormat)] = [
        (PNGCoder(), .png), (JPEGCoder(), .jpeg), (WebPCoder(), .webp), (GIFCoder(), .gif), (APNGCoder(), .png),
        (TIFFCoder(), .tiff), (BMPCoder(), .bmp), (ICOCoder(), .ico),
    ]
    static let sizes: [PixelSize?] = [
        nil, PixelSize(0), PixelSize(width: -1, height: 5), PixelSize(width: 0, height: 3),
        PixelSize(Int.max), PixelSize(width: Int.min, height: Int.max), PixelSize(1),
    ]

    static func image() -> Image {
        var bytes: [UInt8] = []
        for i in 0..<(12 * 8) { bytes += [UInt8(i % 256), UInt8(255 - i % 256), 40, i % 5 == 0 ? 0 : 255] }
        return Image(pixels: PixelBuffer(width: 12, height: 8, layout: .rgba8, bytes: bytes))
    }

    @Test func extremeEncodeOptions() {
        let qualities: [Double] = [.nan, .infinity, -.infinity, -1, 0, 2, 1e300]
        let levels = [Int.min, -1, 0, 9, 100, Int.max]
        for (coder, format) in Self.coders {
            for quality in qualities {
                for level in levels {
                    for size in Self.sizes {
                        let options = EncodeOptions(
                            quality: quality, compressionLevel: level, lossless: level == 0,
                            progressive: level == 9, maxPixelSize: size)
                        _ = try? coder.encode(Self.image(), as: format, options: options)
                    }
                }
            }
        }
    }

    @Test func extremeDecodeOptions() throws {
        let encoded = try Self.coders.map { coder, format in
            try coder.encode(Self.image(), as: format, options: EncodeOptions(lossless: true))
        }
        let scales: [Double] = [.nan, 0, -1, .infinity, 1]
        let limits = [Int.min, -1, 0, 1, Int.max]
        for ((coder, _), data) in zip(Self.coders, encoded) {
            for size in Self.sizes {
                for scale in scales {
                    for limit in limits {
                        let options = DecodeOptions(
                            thumbnailPixelSize: size, preserveAspectRatio: limit > 0, scale: scale,
                            maxPixelCount: limit, maxFrameCount: limit, maxTotalPixelCount: limit,
                            maxProgressiveScanCount: limit)
                        _ = try? coder.decode(data, options: options)
                    }
                }
            }
        }
    }
}
