import Foundation
import WebImageBMPCoder
import WebImageCore
import WebImagePNGCoder

/// Decodes Windows icons and cursors (ICO, CUR) and encodes icons, in Swift on top of the BMP and PNG
/// coders.
///
/// An icon holds several images of one picture; decoding returns the largest (by pixel count, then bit
/// depth, the first of equals), as imgproxy, libvips and Pillow do. Sizes are read from each entry's own
/// header (the directory's byte-sized ones say 0 for 256 and are often wrong), falling back to the
/// directory. A PNG entry decodes with `PNGCoder`; a BMP entry (a DIB whose height counts the image and
/// its 1-bit AND mask) with the BMP coder's reader: the AND mask makes pixels transparent in entries
/// without alpha, and in 32-bit entries whose alpha is zero everywhere, as browsers show them. The image's
/// format is `.ico` either way.
///
/// Untrusted input: the directory is read only as far as the file holds it; the chosen entry's
/// dimensions are checked against the pixel limit before its pixels are allocated, by the PNG or BMP
/// reader, with their own budgets (truncated data is `.badImageData` unless
/// `DecodeOptions/allowPartialImage`).
///
/// Encoding writes one PNG entry (PNG-in-ICO, Windows Vista and every browser read it), as imgproxy
/// does; the image (after `EncodeOptions/maxPixelSize`) must fit in 256x256, else
/// `.invalidParameter`.
///
/// ```swift
/// ICOCoder.register()
/// let favicon = try ICOCoder().decode(data, options: DecodeOptions())
/// ```
public struct ICOCoder: ImageCoder {
    /// The largest side an ICO entry can declare.
    public static let maxEntrySide = 256

    /// An ICO coder.
    public init() {}

    /// Registers an ICO coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(ICOCoder()) }

    public var decodableFormats: [ImageFormat] { [.ico] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .ico }

    public func canEncode(to format: ImageFormat) -> Bool { format == .ico }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        let bytes = [UInt8](data)
        let entry = try ICODirectory.largestEntry(in: bytes)
        let payload = Array(bytes[entry.range])
        if entry.isPNG {
            var image = try PNGCoder().decode(Data(payload), options: options)
            image.format = .ico
            return image
        }
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> Image in
                let reader = DIBReader(bytes: raw)
                let header = try reader.header()
                let (pixels, incomplete) = try reader.pixels(
                    header: header, pixelOffset: nil,
                    rows: max(1, abs(header.height) / 2), andMask: true,
                    options: options, watch: watch)
                return options.image(from: pixels, format: .ico, metadata: ImageMetadata(), isIncomplete: incomplete)
            }
        }
        return try result.get()
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .ico else { throw .unsupportedFormat(format) }
        var pngOptions = options
        pngOptions.firstFrameOnly = true
        var pixels = image.pixels
        if options.maxPixelSize != nil {
            pixels = pixels.fitting(within: options.maxPixelSize)
            pngOptions.maxPixelSize = nil
        }
        guard pixels.width >= 1, pixels.height >= 1,
            pixels.width <= Self.maxEntrySide, pixels.height <= Self.maxEntrySide
        else {
            throw .invalidParameter(
                name: "image",
                reason:
                    "an ICO entry is at most \(Self.maxEntrySide)x\(Self.maxEntrySide), got \(pixels.width)x\(pixels.height)"
            )
        }
        var still = image
        still = Image(pixels: pixels, format: image.format, metadata: image.metadata)
        let png = try PNGCoder().encode(still, as: .png, options: pngOptions)
        var out = [UInt8]([0, 0, 1, 0, 1, 0])  // reserved, type 1 (icon), one entry
        out.append(UInt8(pixels.width & 0xFF))  // 256 is written as 0
        out.append(UInt8(pixels.height & 0xFF))
        out += [0, 0, 1, 0, 32, 0]  // no palette, reserved, 1 plane, 32 bits
        let size = UInt32(png.count), offset = UInt32(6 + 16)
        out += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        out += [UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 24)]
        return Data(out) + png
    }
}

/// The directory of an ICO or CUR file.
enum ICODirectory {
    struct Entry {
        let range: Range<Int>
        let width: Int, height: Int, bitCount: Int
        let isPNG: Bool
    }

    static func largestEntry(in bytes: [UInt8]) throws(ImageError) -> Entry {
        guard bytes.count >= 6, bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0 else {
            throw .badImageData(reason: "ICO: not an icon file")
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let declared = u16(4)
        let count = min(declared, (bytes.count - 6) / 16)
        guard count > 0 else { throw .badImageData(reason: "ICO: the directory has no entry") }
        var best: Entry?
        for i in 0..<count {
            let at = 6 + i * 16
            let offset = u32(at + 12), size = u32(at + 8)
            guard offset >= 6, offset < bytes.count, size > 0 else { continue }
            let end = offset + min(size, bytes.count - offset)  // a size past the end: what is there
            let isPNG =
                end - offset >= 8
                && Array(bytes[offset..<(offset + 8)]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            var width = bytes[at] == 0 ? 256 : Int(bytes[at])
            var height = bytes[at + 1] == 0 ? 256 : Int(bytes[at + 1])
            var bits = u16(at + 6)
            if isPNG, end - offset >= 26 {
                width = u32be(bytes, offset + 16); height = u32be(bytes, offset + 20)
                bits = Int(bytes[offset + 24]) * 4
            } else if !isPNG, end - offset >= 16, u32(offset) >= 12 {
                if u32(offset) == 12 {
                    width = u16(offset + 4); height = u16(offset + 6) / 2; bits = u16(offset + 10)
                } else {
                    width = abs(Int(Int32(truncatingIfNeeded: u32(offset + 4))))
                    height = abs(Int(Int32(truncatingIfNeeded: u32(offset + 8)))) / 2
                    bits = u16(offset + 14)
                }
            }
            let entry = Entry(range: offset..<end, width: width, height: height, bitCount: bits, isPNG: isPNG)
            if let current = best {
                let area = entry.width.multipliedReportingOverflow(by: entry.height)
                let bestArea = current.width * current.height
                if area.overflow { continue }
                if area.partialValue > bestArea || (area.partialValue == bestArea && entry.bitCount > current.bitCount)
                {
                    best = entry
                }
            } else if !entry.width.multipliedReportingOverflow(by: entry.height).overflow {
                best = entry
            }
        }
        guard let best else { throw .badImageData(reason: "ICO: no entry points inside the file") }
        return best
    }

    private static func u32be(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }
}
