import CTIFF
import Foundation
import WebImageCore

/// The decode of one TIFF's first page: header checks, then libtiff's RGBA reader band by band.
enum TIFFDecoder {
    /// Tags of the blocks kept on `ImageMetadata`.
    private static let iccProfileTag: UInt32 = 34675
    private static let xmpTag: UInt32 = 700
    /// Rows decoded between two checks of the watch, at least (rounded up to whole strips or tiles).
    private static let bandPixels = 1 << 18

    static func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        // libtiff reads the bytes in place while the decoder is open, which ends inside this closure.
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> Image in
                try decode(raw.bindMemory(to: UInt8.self), options: options, watch: watch)
            }
        }
        return try result.get()
    }

    private static func decode(
        _ buffer: UnsafeBufferPointer<UInt8>, options: DecodeOptions,
        watch: DecodeWatch
    ) throws(ImageError) -> Image {
        guard buffer.count >= 8, ImageFormat.detect(UnsafeRawBufferPointer(buffer)) == .tiff else {
            throw .badImageData(reason: "TIFF: not a TIFF file")
        }
        // Any single allocation libtiff makes (strip buffers, offset arrays, tag values) stays under the
        // pixel limit as RGBA bytes, the most the decoded image itself may take.
        let (limitBytes, overflow) = options.maxPixelCount.multipliedReportingOverflow(by: 4)
        let memoryLimit = overflow ? Int.max : max(limitBytes, 1 << 20)
        var message = [CChar](repeating: 0, count: 256)
        guard
            let decoder = ctiff_decoder_open(
                buffer.baseAddress, buffer.count, Int64(memoryLimit), &message, message.count)
        else {
            throw .badImageData(reason: "TIFF: \(text(message))")
        }
        defer { ctiff_decoder_close(decoder) }
        var info = ctiff_info()
        ctiff_decoder_info(decoder, &info)
        let width = Int(info.width), height = Int(info.height)
        try options.checkDimensions(width: width, height: height)
        if info.sample_format == 3 {
            throw .unsupportedFormat(.tiff)  // IEEE floating point samples: not for libtiff's RGBA reader
        }
        guard info.samples_per_pixel >= 1, info.bits_per_sample >= 1, info.bits_per_sample <= 16 else {
            throw .badImageData(
                reason: "TIFF: \(info.samples_per_pixel) samples of \(info.bits_per_sample) bits are not supported")
        }
        if info.block_size > UInt64(memoryLimit) {
            throw .decodeBudgetExceeded(.decoderMemory, value: Int(clamping: info.block_size), limit: memoryLimit)
        }
        let metadata = self.metadata(decoder, orientation: Int(info.orientation))
        guard ctiff_decoder_begin(decoder, &message, message.count) == 1 else {
            throw .badImageData(reason: "TIFF: \(text(message))")
        }
        try watch.check()

        // Bands of whole strips (or tiles), so no strip is decompressed twice.
        let block = max(1, min(height, Int(info.rows_per_block == 0 ? info.height : info.rows_per_block)))
        let wanted = max(1, bandPixels / width)
        let bandRows = min(height, (wanted + block - 1) / block * block)
        var raster = [UInt32](repeating: 0, count: width * bandRows)
        let layout: PixelLayout =
            info.alpha != 0
            ? .rgba8
            : (info.samples_per_pixel == 1 && (info.photometric == 0 || info.photometric == 1)) ? .gray8 : .rgb8
        let channels = layout.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        // libtiff premultiplies RGB with unassociated alpha; gray with alpha comes as stored.
        let straightAlpha = info.alpha == 2 && (info.photometric == 0 || info.photometric == 1)
        var row = 0
        while row < height {
            let rows = min(bandRows, height - row)
            if try !readBand(decoder, row: row, rows: rows, width: width, raster: &raster, message: &message) {
                // The band fails (a strip or tile is truncated or damaged): with partial images allowed,
                // its strips one by one up to the damaged one, then what was decoded.
                guard options.allowPartialImage else { throw .badImageData(reason: "TIFF: \(text(message))") }
                var decodedRows = row
                while decodedRows < row + rows {
                    let blockRows = min(block, height - decodedRows)
                    guard
                        try readBand(
                            decoder, row: decodedRows, rows: blockRows, width: width, raster: &raster,
                            message: &message)
                    else { break }
                    store(
                        raster, rows: blockRows, width: width, into: &pixels, at: decodedRows * width * channels,
                        layout: layout, straightAlpha: straightAlpha)
                    decodedRows += blockRows
                    try watch.check()
                }
                guard decodedRows > 0 else { throw .badImageData(reason: "TIFF: \(text(message))") }
                let partial = PixelBuffer(width: width, height: height, layout: layout, bytes: pixels)
                return options.image(from: partial, format: .tiff, metadata: metadata, isIncomplete: true)
            }
            store(
                raster, rows: rows, width: width, into: &pixels, at: row * width * channels, layout: layout,
                straightAlpha: straightAlpha)
            row += rows
            try watch.check()
        }
        let decoded = PixelBuffer(width: width, height: height, layout: layout, bytes: pixels)
        return options.image(from: decoded, format: .tiff, metadata: metadata)
    }

    /// Decodes `rows` rows from `row` into `raster`; false (with the message) when libtiff fails.
    private static func readBand(
        _ decoder: OpaquePointer, row: Int, rows: Int, width: Int, raster: inout [UInt32],
        message: inout [CChar]
    ) throws(ImageError) -> Bool {
        let capacity = message.count
        return raster.withUnsafeMutableBufferPointer { band in
            ctiff_decoder_read_rows(decoder, UInt32(row), UInt32(rows), band.baseAddress, &message, capacity)
        } == 1
    }

    /// Copies a band of libtiff's RGBA words (R in the low byte, alpha premultiplied unless
    /// `straightAlpha`) into the output layout, with straight alpha.
    private static func store(
        _ raster: [UInt32], rows: Int, width: Int, into pixels: inout [UInt8], at start: Int,
        layout: PixelLayout, straightAlpha: Bool
    ) {
        let count = rows * width
        raster.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                switch layout {
                case .gray8:
                    for i in 0..<count { output[start + i] = UInt8(truncatingIfNeeded: source[i]) }
                case .rgb8:
                    for i in 0..<count {
                        let word = source[i], o = start + i * 3
                        output[o] = UInt8(truncatingIfNeeded: word)
                        output[o + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        output[o + 2] = UInt8(truncatingIfNeeded: word >> 16)
                    }
                case .rgba8:
                    for i in 0..<count {
                        let word = source[i], o = start + i * 4
                        let alpha = UInt32(word >> 24)
                        var r = word & 0xFF, g = word >> 8 & 0xFF, b = word >> 16 & 0xFF
                        if straightAlpha {
                            // As stored.
                        } else if alpha == 0 {
                            r = 0; g = 0; b = 0
                        } else if alpha < 255 {
                            r = min(255, (r * 255 + alpha / 2) / alpha)
                            g = min(255, (g * 255 + alpha / 2) / alpha)
                            b = min(255, (b * 255 + alpha / 2) / alpha)
                        }
                        output[o] = UInt8(r); output[o + 1] = UInt8(g); output[o + 2] = UInt8(b)
                        output[o + 3] = UInt8(alpha)
                    }
                }
            }
        }
    }

    /// The ICC profile and XMP packet, and the orientation tag as a minimal EXIF block (a TIFF structure
    /// with one entry), which is how Core reads every coder's orientation.
    private static func metadata(_ decoder: OpaquePointer, orientation: Int) -> ImageMetadata {
        func blob(_ tag: UInt32) -> Data? {
            var pointer: UnsafePointer<UInt8>? = nil
            var count: UInt32 = 0
            guard ctiff_decoder_blob(decoder, tag, &pointer, &count) == 1, let pointer else { return nil }
            return Data(bytes: pointer, count: Int(count))
        }
        let exif: Data? =
            orientation == 1
            ? nil
            : Data([
                0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,  // little-endian TIFF header, IFD at 8
                0x01, 0x00,  // one entry
                0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,  // tag 274 (Orientation), SHORT, count 1
                UInt8(orientation), 0x00, 0x00, 0x00,  // the value
                0x00, 0x00, 0x00, 0x00,  // no next IFD
            ])
        return ImageMetadata(iccProfile: blob(iccProfileTag), exif: exif, xmp: blob(xmpTag))
    }

    /// A C message buffer as text.
    static func text(_ message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "unknown error" : text
    }
}
