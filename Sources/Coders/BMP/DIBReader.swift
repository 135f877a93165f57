import Foundation
import WebImageCore

/// Reads a device-independent bitmap: the DIB header, palette or bit masks, and pixels of a BMP file or
/// of a BMP entry in an ICO. Package access, so the ICO coder decodes its entries with it.
///
/// Headers: OS/2 1.x (12 bytes), Windows `BITMAPINFOHEADER` (40) and its V2 to V5 extensions (52, 56,
/// 108, 124), OS/2 2.x (16 to 64). Pixels: 1, 2, 4 and 8 bits through a palette, 16 and 32 bits through
/// bit masks (5-5-5 and BGRX by default), 24-bit BGR, RLE8 and RLE4; bottom-up and top-down rows.
/// Embedded JPEG or PNG pixels (`BI_JPEG`, `BI_PNG`) and OS/2 Huffman/RLE24 are refused with
/// `.unsupportedFormat`.
///
/// Where the format is vague it reads as browsers do: in 32-bit pixels the fourth byte is alpha unless
/// every pixel's is zero (then the image is opaque); palette indices past the palette are black; pixels
/// an RLE stream skips or never reaches are transparent.
package struct DIBReader {
    /// Bytes from the DIB header on (a BMP file without its 14-byte file header, or one ICO entry).
    let bytes: UnsafeRawBufferPointer

    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// What a DIB header says.
    package struct Header: Sendable {
        package var headerSize = 0
        package var width = 0
        /// Positive: rows stored bottom-up; negative: top-down.
        package var height = 0
        package var bitCount = 0
        package var compression = 0
        package var colorsUsed = 0
        package var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) = (0, 0, 0, 0)
        /// Whether the masks come from the file (BI_BITFIELDS) rather than the defaults.
        package var hasMasks = false
        /// Offset of the palette (or masks after a 40-byte header) from the DIB start.
        package var tableOffset = 0
        /// Bytes per palette entry: 3 in OS/2 1.x files, 4 otherwise.
        package var paletteEntrySize = 4
        /// An embedded ICC profile's range from the DIB start (V5 headers), if any.
        package var profile: Range<Int>?
        /// Whether the header is an OS/2 2.x one (compression values differ).
        package var isOS2 = false
    }

    private func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    private func u32(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    private func i32(_ at: Int) -> Int { Int(Int32(bitPattern: u32(at))) }

    /// Reads the DIB header (and masks) without touching pixels.
    package func header() throws(ImageError) -> Header {
        guard bytes.count >= 12 else { throw .badImageData(reason: "BMP: the DIB header is truncated") }
        var header = Header()
        header.headerSize = Int(u32(0))
        let size = header.headerSize
        if size == 12 {
            header.width = u16(4)
            header.height = Int(Int16(bitPattern: UInt16(u16(6))))
            header.bitCount = u16(10)
            header.paletteEntrySize = 3
        } else if size >= 16 {
            guard bytes.count >= min(size, 40) && bytes.count >= 16 else {
                throw .badImageData(reason: "BMP: the DIB header is truncated")
            }
            header.width = i32(4)
            header.height = i32(8)
            header.bitCount = u16(14)
            header.isOS2 = size == 64 || (size > 16 && size < 40)
            if size >= 20 { header.compression = Int(u32(16)) }
            if size >= 36 { header.colorsUsed = Int(u32(32)) }
            if header.isOS2 && (header.compression == 3 || header.compression == 4) {
                throw .unsupportedFormat(.bmp)  // OS/2 Huffman 1D and RLE24
            }
        } else {
            throw .badImageData(reason: "BMP: unknown DIB header size \(size)")
        }
        guard size <= bytes.count else { throw .badImageData(reason: "BMP: the DIB header is truncated") }
        header.tableOffset = size
        switch header.compression {
        case 0, 1, 2: break
        case 3, 6:
            header.hasMasks = true
            if size >= 52 {
                header.masks = (u32(40), u32(44), u32(48), size >= 56 ? u32(52) : 0)
            } else {
                let count = header.compression == 6 ? 4 : 3
                guard bytes.count >= size + count * 4 else {
                    throw .badImageData(reason: "BMP: the bit masks are truncated")
                }
                header.masks = (u32(size), u32(size + 4), u32(size + 8), count == 4 ? u32(size + 12) : 0)
                header.tableOffset = size + count * 4
            }
        case 4, 5: throw .unsupportedFormat(.bmp)  // BI_JPEG, BI_PNG
        default: throw .badImageData(reason: "BMP: unknown compression \(header.compression)")
        }
        if !header.hasMasks {
            if header.bitCount == 16 {
                header.masks = (0x7C00, 0x03E0, 0x001F, 0)
            } else if header.bitCount == 32 {
                header.masks = (0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000)
            }
            // A V3+ header's alpha mask applies to BI_RGB 32-bit pixels too, but the default is the same.
        }
        if size >= 124, u32(56) == 0x4D42_4544 {  // 'MBED': an embedded profile
            let start = Int(u32(112)), length = Int(u32(116))
            if start >= size, length > 0, start <= bytes.count, length <= bytes.count - start {
                header.profile = start..<(start + length)
            }
        }
        switch (header.bitCount, header.compression) {
        case (1, 0), (2, 0), (4, 0), (8, 0), (24, 0), (16, 0), (32, 0), (8, 1), (4, 2), (16, 3), (32, 3), (16, 6),
            (32, 6):
            break
        default:
            throw .badImageData(reason: "BMP: \(header.bitCount) bits per pixel with compression \(header.compression)")
        }
        guard header.width > 0, header.height != 0, header.height != Int(Int32.min) else {
            throw .badImageData(reason: "BMP: image has a zero or invalid dimension (\(header.width)x\(header.height))")
        }
        return header
    }

    /// The decoded pixels. `pixelOffset` is where the pixel array starts (from the DIB start; nil: right
    /// after the palette); `rows` is the image height (|height|, or half of it for an ICO entry).
    /// `andMask`: an ICO entry's 1-bit transparency mask follows the pixels. With `allowPartial`, missing
    /// rows of a truncated file stay transparent instead of failing the decode.
    package func pixels(
        header: Header, pixelOffset: Int?, rows: Int, andMask: Bool, options: DecodeOptions,
        watch: DecodeWatch
    ) throws(ImageError) -> (pixels: PixelBuffer, isIncomplete: Bool) {
        let width = header.width, height = rows
        try options.checkDimensions(width: width, height: height)
        let topDown = header.height < 0
        let bits = header.bitCount
        // Palette.
        var palette: [(UInt8, UInt8, UInt8)] = []
        if bits <= 8 {
            let maximum = 1 << bits
            let count = header.colorsUsed > 0 && header.colorsUsed < maximum ? header.colorsUsed : maximum
            let entry = header.paletteEntrySize
            palette.reserveCapacity(count)
            for i in 0..<count {
                let at = header.tableOffset + i * entry
                guard at + 3 <= bytes.count else { break }
                palette.append((bytes[at + 2], bytes[at + 1], bytes[at]))
            }
            if palette.isEmpty { throw .badImageData(reason: "BMP: the palette is missing") }
        }
        let paletteBytes =
            bits <= 8
            ? (header.colorsUsed > 0 ? min(header.colorsUsed, 1 << bits) : 1 << bits) * header.paletteEntrySize : 0
        let start = pixelOffset ?? (header.tableOffset + paletteBytes)
        guard start >= 0, start <= bytes.count else {
            throw .badImageData(reason: "BMP: the pixel data offset is past the end")
        }

        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        var incomplete = false
        var rleCovered: [Bool]? = nil
        if header.compression == 1 || header.compression == 2 {
            var covered = [Bool](repeating: false, count: width * height)
            incomplete = try decodeRLE(
                header: header, start: start, width: width, height: height, topDown: topDown,
                palette: palette, into: &rgba, covered: &covered, watch: watch)
            rleCovered = covered
            if incomplete && !options.allowPartialImage {
                throw .badImageData(reason: "BMP: the RLE data ends before its end-of-bitmap marker")
            }
        } else {
            let rowStride = ((width * bits + 31) / 32) * 4
            let available = bytes.count - start
            let fullRows = min(height, rowStride == 0 ? 0 : available / rowStride)
            if fullRows < height {
                guard options.allowPartialImage, fullRows > 0 else {
                    throw .badImageData(reason: "BMP: the pixel data is truncated (\(fullRows) of \(height) rows)")
                }
                incomplete = true
            }
            for storedRow in 0..<fullRows {
                if storedRow & 63 == 0 { try watch.check() }
                let y = topDown ? storedRow : height - 1 - storedRow
                readRow(
                    at: start + storedRow * rowStride, width: width, header: header, palette: palette,
                    into: &rgba, offset: y * width * 4)
            }
            if bits == 32 || (bits == 16 && header.masks.alpha != 0) {
                // Browsers: an alpha channel whose every value is zero means an opaque image.
                var anyAlpha = false
                for i in stride(from: 3, to: rgba.count, by: 4) where rgba[i] != 0 { anyAlpha = true; break }
                if !anyAlpha && (header.masks.alpha != 0 || bits == 32) {
                    for row in 0..<fullRows {
                        let y = topDown ? row : height - 1 - row
                        for x in 0..<width { rgba[(y * width + x) * 4 + 3] = 255 }
                    }
                }
            }
            if andMask && bits != 32 || andMask && bits == 32 && isOpaqueMaskNeeded(rgba) {
                applyANDMask(
                    at: start + rowStride * height, width: width, height: height, topDown: topDown, into: &rgba)
            }
        }
        let hasAlpha =
            incomplete || rleCovered.map { $0.contains(false) } == true
            || (0..<(width * height)).contains { rgba[$0 * 4 + 3] != 255 }
        let layout: PixelLayout = hasAlpha ? .rgba8 : .rgb8
        let buffer = PixelBuffer(width: width, height: height, layout: .rgba8, bytes: rgba)
        return (layout == .rgba8 ? buffer : buffer.converted(to: .rgb8), incomplete)
    }

    /// A 32-bit ICO entry uses its alpha channel; when every alpha is 255 (the alpha was all zero and
    /// made opaque, or the file has none), the AND mask says which pixels are transparent.
    private func isOpaqueMaskNeeded(_ rgba: [UInt8]) -> Bool {
        for i in stride(from: 3, to: rgba.count, by: 4) where rgba[i] != 255 { return false }
        return true
    }

    private func applyANDMask(at start: Int, width: Int, height: Int, topDown: Bool, into rgba: inout [UInt8]) {
        let rowStride = ((width + 31) / 32) * 4
        for storedRow in 0..<height {
            let at = start + storedRow * rowStride
            // no mask (or a truncated one): opaque, as browsers show it
            guard at + rowStride <= bytes.count else { return }
            let y = topDown ? storedRow : height - 1 - storedRow
            for x in 0..<width where bytes[at + x >> 3] & (0x80 >> UInt8(x & 7)) != 0 {
                let o = (y * width + x) * 4
                rgba[o] = 0; rgba[o + 1] = 0; rgba[o + 2] = 0; rgba[o + 3] = 0
            }
        }
    }

    private func readRow(
        at start: Int, width: Int, header: Header, palette: [(UInt8, UInt8, UInt8)],
        into rgba: inout [UInt8], offset: Int
    ) {
        let bits = header.bitCount
        switch bits {
        case 1, 2, 4, 8:
            let perByte = 8 / bits, mask = (1 << bits) - 1
            for x in 0..<width {
                let byte = Int(bytes[start + x / perByte])
                let shift = 8 - bits * (x % perByte + 1)
                let index = byte >> shift & mask
                let color = index < palette.count ? palette[index] : (0, 0, 0)
                let o = offset + x * 4
                rgba[o] = color.0; rgba[o + 1] = color.1; rgba[o + 2] = color.2; rgba[o + 3] = 255
            }
        case 24:
            for x in 0..<width {
                let at = start + x * 3, o = offset + x * 4
                rgba[o] = bytes[at + 2]; rgba[o + 1] = bytes[at + 1]; rgba[o + 2] = bytes[at]; rgba[o + 3] = 255
            }
        default:
            let red = Channel(header.masks.red), green = Channel(header.masks.green), blue = Channel(header.masks.blue)
            let alpha = Channel(header.masks.alpha)
            for x in 0..<width {
                let value: UInt32 =
                    bits == 16
                    ? UInt32(bytes[start + x * 2]) | UInt32(bytes[start + x * 2 + 1]) << 8
                    : u32(start + x * 4)
                let o = offset + x * 4
                rgba[o] = red.value(value); rgba[o + 1] = green.value(value); rgba[o + 2] = blue.value(value)
                rgba[o + 3] = header.masks.alpha == 0 ? 255 : alpha.value(value)
            }
        }
    }

    /// One bit-mask channel, scaled to 8 bits to the nearest level (`v * 255 / max`, rounded), as
    /// Chromium's table does; Pillow truncates instead (one level lower at most). A mask with holes counts
    /// from its lowest to its highest bit.
    private struct Channel {
        let mask: UInt32, shift: UInt32, bits: UInt32
        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            bits = mask == 0 ? 0 : 32 - UInt32(mask.leadingZeroBitCount) - shift
        }
        func value(_ pixel: UInt32) -> UInt8 {
            guard bits > 0 else { return 0 }
            let v = (pixel & mask) >> shift
            if bits >= 8 { return UInt8(truncatingIfNeeded: v >> (bits - 8)) }
            let maximum = (UInt32(1) << bits) - 1
            return UInt8(truncatingIfNeeded: (v * 255 + maximum / 2) / maximum)
        }
    }

    /// RLE8 / RLE4. Returns whether the stream ended before its end-of-bitmap marker.
    private func decodeRLE(
        header: Header, start: Int, width: Int, height: Int, topDown: Bool,
        palette: [(UInt8, UInt8, UInt8)], into rgba: inout [UInt8], covered: inout [Bool],
        watch: DecodeWatch
    ) throws(ImageError) -> Bool {
        let four = header.compression == 2
        var x = 0, row = 0, at = start
        func put(_ index: Int) {
            guard x < width, row < height else { return }
            let y = topDown ? row : height - 1 - row
            let color = index < palette.count ? palette[index] : (0, 0, 0)
            let o = (y * width + x) * 4
            rgba[o] = color.0; rgba[o + 1] = color.1; rgba[o + 2] = color.2; rgba[o + 3] = 255
            covered[y * width + x] = true
        }
        var steps = 0
        while at + 2 <= bytes.count {
            steps += 1
            if steps & 0xFFFF == 0 { try watch.check() }
            let count = Int(bytes[at]), value = Int(bytes[at + 1])
            at += 2
            if count > 0 {
                for i in 0..<count {
                    put(four ? (i & 1 == 0 ? value >> 4 : value & 0x0F) : value)
                    x += 1
                }
                continue
            }
            switch value {
            case 0: x = 0; row += 1  // end of line
            case 1: return false  // end of bitmap
            case 2:  // delta
                guard at + 2 <= bytes.count else { return true }
                x += Int(bytes[at]); row += Int(bytes[at + 1])
                at += 2
            default:  // absolute run of `value` pixels, padded to 16 bits
                let byteCount = four ? (value + 1) / 2 : value
                guard at + byteCount <= bytes.count else { return true }
                for i in 0..<value {
                    let byte = Int(bytes[at + (four ? i / 2 : i)])
                    put(four ? (i & 1 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    x += 1
                }
                at += (byteCount + 1) & ~1
            }
            if row >= height { return false }
        }
        return true
    }
}
