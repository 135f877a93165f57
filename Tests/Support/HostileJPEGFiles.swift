import Foundation
import WebImageCore

extension HostileFiles {
    /// Blocks one EOB14 code can end: 2^14 plus the largest 14-bit extra value.
    private static let longestEndOfBandRun = (1 << 14) + (1 << 14) - 1

    /// A grayscale progressive JPEG of `size` whose image data is `scans` AC scans (coefficients 1 to 63,
    /// no DC scan at all), each ending every block of the image with a few "end of band" runs: about 100
    /// bytes a scan at 100 MP, yet each scan makes libjpeg walk every 8x8 block. The repeated scans are
    /// legal syntax; libjpeg only warns about the odd progression (and the missing DC scan) and decodes
    /// every pixel as mid gray. With 9,000 scans at 10000x10000 the file is about 1 MB.
    public static func manyScansProgressiveJPEG(scans: Int, size: PixelSize) -> Data {
        precondition(scans >= 1 && size.width > 0 && size.height > 0 && size.width <= 0xFFFF && size.height <= 0xFFFF)
        var writer = JPEGByteWriter()
        writer.marker(0xD8)  // SOI
        writer.segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // DQT: table 0, all ones
        // SOF2 (progressive): 8 bits, height, width, one component (id 1, 1x1 sampling, table 0).
        writer.segment(
            0xC2,
            [
                8, UInt8(size.height >> 8), UInt8(size.height & 0xFF),
                UInt8(size.width >> 8), UInt8(size.width & 0xFF), 1, 1, 0x11, 0,
            ])
        // AC table 0 with one code, "0", for symbol 0xE0: EOB14 (an end-of-band run of 2^14 + 14 bits).
        writer.huffmanTable(isAC: true, id: 0, lengths: [1] + [UInt8](repeating: 0, count: 15), symbols: [0xE0])
        let blocks = ((size.width + 7) / 8) * ((size.height + 7) / 8)
        let runs = (blocks + longestEndOfBandRun - 1) / longestEndOfBandRun
        for _ in 0..<scans {
            // SOS: one component (id 1, tables 0/0), spectral selection 1...63, no successive approximation.
            writer.segment(0xDA, [1, 1, 0x00, 1, 63, 0x00])
            for _ in 0..<runs {
                writer.bits(0, count: 1)  // EOB14
                writer.bits((1 << 14) - 1, count: 14)  // its longest run (the last one may overshoot)
            }
            writer.flushBits()
        }
        writer.marker(0xD9)  // EOI
        return Data(writer.bytes)
    }

    /// A baseline four-component (CMYK) JPEG of `size` where every pixel stores the samples `stored`
    /// (C, M, Y, K as written in the file), with or without Adobe's APP14 marker. Adobe's convention,
    /// which Photoshop writes and every reader assumes, stores inverted values: 255 means no ink, so
    /// (255, 0, 255, 255) is pure magenta. Files without the marker exist (written by libjpeg with
    /// `write_Adobe_marker` off, and by some scanners and RIPs); decoders such as djpeg, libvips, Pillow,
    /// ImageMagick and the browsers read them the same way as with the marker.
    public static func flatCMYKJPEG(size: PixelSize, stored: [UInt8], adobeMarker: Bool) -> Data {
        precondition(
            stored.count == 4 && size.width > 0 && size.height > 0 && size.width <= 0xFFFF && size.height <= 0xFFFF)
        var writer = JPEGByteWriter()
        writer.marker(0xD8)  // SOI
        if adobeMarker {
            // APP14 "Adobe": version 100, no flags, transform 0 (CMYK stored as is, not YCCK).
            writer.segment(0xEE, Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00])
        }
        writer.segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // DQT: table 0, all ones
        // SOF0 (baseline): 8 bits, height, width, four components (ids 1...4, 1x1 sampling, table 0).
        var frame: [UInt8] = [
            8, UInt8(size.height >> 8), UInt8(size.height & 0xFF),
            UInt8(size.width >> 8), UInt8(size.width & 0xFF), 4,
        ]
        for id in 1...4 { frame += [UInt8(id), 0x11, 0] }
        writer.segment(0xC0, frame)
        // DC table 0: categories 0...11, each a 4-bit code equal to the category. AC table 0: only EOB, "0".
        writer.huffmanTable(
            isAC: false, id: 0, lengths: [0, 0, 0, 12] + [UInt8](repeating: 0, count: 12),
            symbols: Array(0...11))
        writer.huffmanTable(isAC: true, id: 0, lengths: [1] + [UInt8](repeating: 0, count: 15), symbols: [0x00])
        writer.segment(0xDA, [4, 1, 0x00, 2, 0x00, 3, 0x00, 4, 0x00, 0, 63, 0x00])
        // A flat block of sample v has the DC coefficient 8 * (v - 128) with a quantizer of 1; it is coded
        // as the difference from the previous block of the same component, so only the first is nonzero.
        let blocks = ((size.width + 7) / 8) * ((size.height + 7) / 8)
        for block in 0..<blocks {
            for sample in stored {
                let difference = block == 0 ? 8 * (Int(sample) - 128) : 0
                let category = difference == 0 ? 0 : Int.bitWidth - abs(difference).leadingZeroBitCount
                writer.bits(category, count: 4)
                writer.bits(difference >= 0 ? difference : difference + (1 << category) - 1, count: category)
                writer.bits(0, count: 1)  // EOB: all AC coefficients zero
            }
        }
        writer.flushBits()
        writer.marker(0xD9)  // EOI
        return Data(writer.bytes)
    }
}
