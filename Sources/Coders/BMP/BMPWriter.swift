import Foundation
import WebImageCore

/// Writes BMP files and the DIBs inside them.
enum BMPWriter {
    /// The V4 header's size: the smallest header with an alpha mask every reader honours.
    private static let v4HeaderSize = 108

    static func file(_ pixels: PixelBuffer) throws(ImageError) -> Data {
        let width = pixels.width, height = pixels.height
        let bits =
            switch pixels.layout {
            case .gray8: 8;
            case .rgb8: 24;
            case .rgba8: 32
            }
        let headerSize = pixels.layout == .rgba8 ? v4HeaderSize : 40
        let paletteSize = pixels.layout == .gray8 ? 256 * 4 : 0
        let rowStride = ((width * bits + 31) / 32) * 4
        let (imageSize, o1) = rowStride.multipliedReportingOverflow(by: height)
        let offset = 14 + headerSize + paletteSize
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), !o1,
            imageSize <= Int(UInt32.max) - offset
        else {
            throw .invalidParameter(name: "image", reason: "BMP cannot hold a \(width)x\(height) image")
        }
        var out = [UInt8]()
        out.reserveCapacity(offset + imageSize)
        func le16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) {
            out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        }
        // File header.
        out += [0x42, 0x4D]
        le32(UInt32(offset + imageSize)); le32(0); le32(UInt32(offset))
        // DIB header.
        le32(UInt32(headerSize)); le32(UInt32(width)); le32(UInt32(height))
        le16(1); le16(bits)
        le32(pixels.layout == .rgba8 ? 3 : 0)  // BI_BITFIELDS for alpha, else BI_RGB
        le32(UInt32(imageSize))
        le32(2835); le32(2835)  // 72 dpi
        le32(pixels.layout == .gray8 ? 256 : 0); le32(0)
        if pixels.layout == .rgba8 {
            le32(0x00FF_0000); le32(0x0000_FF00); le32(0x0000_00FF); le32(0xFF00_0000)
            out += Array("BGRs".utf8.reversed())  // LCS_sRGB ('sRGB' stored little-endian)
            out += [UInt8](repeating: 0, count: 36 + 12)  // endpoints and gamma, unused with sRGB
        }
        if pixels.layout == .gray8 {
            for v in 0..<256 { out += [UInt8(v), UInt8(v), UInt8(v), 0] }
        }
        // Pixels, bottom-up.
        let padding = rowStride - width * bits / 8
        for y in stride(from: height - 1, through: 0, by: -1) {
            let row = y * pixels.bytesPerRow
            switch pixels.layout {
            case .gray8:
                out += pixels.bytes[row..<(row + width)]
            case .rgb8:
                for x in 0..<width {
                    let i = row + x * 3
                    out += [pixels.bytes[i + 2], pixels.bytes[i + 1], pixels.bytes[i]]
                }
            case .rgba8:
                for x in 0..<width {
                    let i = row + x * 4
                    out += [pixels.bytes[i + 2], pixels.bytes[i + 1], pixels.bytes[i], pixels.bytes[i + 3]]
                }
            }
            if padding > 0 { out += [UInt8](repeating: 0, count: padding) }
        }
        return Data(out)
    }
}
