import Foundation

/// An image file format. Extensible: a custom coder declares its own with
/// `extension ImageFormat { static let qoi = ImageFormat("qoi", mimeType: "image/qoi") }`.
public struct ImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// A short lowercase identifier ("jpeg", "png", ...); two formats are equal when their identifiers are.
    public let identifier: String
    /// The MIME type servers send for it, used in `Accept` headers; nil when there is none.
    public let mimeType: String?
    /// The usual file extension, without the dot.
    public let fileExtension: String?

    /// Declares a format.
    public init(_ identifier: String, mimeType: String? = nil, fileExtension: String? = nil) {
        self.identifier = identifier
        self.mimeType = mimeType
        self.fileExtension = fileExtension ?? identifier
    }

    public static func == (lhs: ImageFormat, rhs: ImageFormat) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    /// No known format: images made in memory, or bytes nothing recognises.
    public static let undefined = ImageFormat("undefined", mimeType: nil, fileExtension: nil)
    /// JPEG (JFIF, EXIF), `image/jpeg`.
    public static let jpeg = ImageFormat("jpeg", mimeType: "image/jpeg", fileExtension: "jpg")
    /// PNG, and animated PNG (APNG), `image/png`.
    public static let png = ImageFormat("png", mimeType: "image/png")
    /// GIF, still or animated, `image/gif`.
    public static let gif = ImageFormat("gif", mimeType: "image/gif")
    /// WebP, lossy or lossless, still or animated, `image/webp`.
    public static let webp = ImageFormat("webp", mimeType: "image/webp")
    /// TIFF, `image/tiff` (recognised; no built-in coder).
    public static let tiff = ImageFormat("tiff", mimeType: "image/tiff")
    /// HEIC: HEIF with HEVC images, as phones write them, `image/heic`.
    public static let heic = ImageFormat("heic", mimeType: "image/heic")
    /// HEIF with other codecs, `image/heif`.
    public static let heif = ImageFormat("heif", mimeType: "image/heif")
    /// AVIF: HEIF with AV1 images, `image/avif`.
    public static let avif = ImageFormat("avif", mimeType: "image/avif")
    /// Windows bitmap, `image/bmp` (recognised; no built-in coder).
    public static let bmp = ImageFormat("bmp", mimeType: "image/bmp")
    /// Windows icon, `image/x-icon` (recognised; no built-in coder).
    public static let ico = ImageFormat("ico", mimeType: "image/x-icon")
    /// SVG, `image/svg+xml` (recognised; vector images are not decoded).
    public static let svg = ImageFormat("svg", mimeType: "image/svg+xml")
    /// PDF, `application/pdf` (recognised; not decoded).
    public static let pdf = ImageFormat("pdf", mimeType: "application/pdf")
    /// JPEG XL, `image/jxl`.
    public static let jpegXL = ImageFormat("jxl", mimeType: "image/jxl")
}

extension ImageFormat {
    /// Sniffs the format from the first bytes of `data`; `.undefined` when nothing matches.
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { raw in detect(UnsafeRawBufferPointer(raw)) }
    }

    /// Sniffs the format from the first bytes of a buffer; `.undefined` when nothing matches.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            for (i, b) in prefix.enumerated() where bytes[offset + i] != b { return false }
            return true
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("BM".utf8)) && bytes.count >= 14 { return .bmp }
        if starts([0x00, 0x00, 0x01, 0x00]) || starts([0x00, 0x00, 0x02, 0x00]) { return .ico }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            // ISO base media file: the major brand (and compatible brands) name the flavour.
            let brand = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[8..<12]), as: UTF8.self)
            switch brand {
            case "avif", "avis": return .avif
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
            case "mif1", "msf1":
                let boxEnd = min(bytes.count, Int(bytes[3]) | Int(bytes[2]) << 8)
                if boxEnd > 16 {
                    let rest = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[16..<boxEnd]), as: UTF8.self)
                    if rest.contains("avif") { return .avif }
                    if rest.contains("heic") { return .heic }
                }
                return .heif
            default: break
            }
        }
        // SVG is text: look for an <svg element near the start, after an optional XML prolog.
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, 1024)]), as: UTF8.self)
        if head.contains("<svg") { return .svg }
        return .undefined
    }

    /// Whether a WebP's data says it is animated (a VP8X chunk with the animation flag).
    public static func isAnimatedWebP(_ data: Data) -> Bool {
        guard detect(data) == .webp, data.count >= 21 else { return false }
        let start = data.startIndex
        guard data[start + 12] == UInt8(ascii: "V"), data[start + 13] == UInt8(ascii: "P"),
            data[start + 14] == UInt8(ascii: "8"), data[start + 15] == UInt8(ascii: "X")
        else { return false }
        return data[start + 20] & 0x02 != 0
    }

    /// The format a file extension usually names (`"jpg"` gives `.jpeg`); `.undefined` otherwise.
    public static func fromFileExtension(_ ext: String) -> ImageFormat {
        switch ext.lowercased() {
        case "jpg", "jpeg", "jpe": .jpeg
        case "png", "apng": .png
        case "gif": .gif
        case "webp": .webp
        case "tif", "tiff": .tiff
        case "heic": .heic
        case "heif": .heif
        case "avif": .avif
        case "bmp": .bmp
        case "ico": .ico
        case "svg": .svg
        case "pdf": .pdf
        case "jxl": .jpegXL
        default: .undefined
        }
    }
}
