internal import CPNG
import Foundation
import WebImageCore

/// Decodes a PNG from bytes fed as they arrive, with libpng's progressive reader: partial images show
/// the rows decoded so far (for interlaced files, the Adam7 passes so far). ``PNGCoder`` decodes whole
/// files through it too, so both paths give the same pixels.
///
/// With a thumbnail size, rows of non-interlaced images go straight into a downsampler
/// (``PNGRowStream``) and the full image is never held.
final class PNGIncrementalDecoder: IncrementalImageDecoder {
    let options: DecodeOptions
    let reader: OpaquePointer?
    /// Set for thumbnail decodes; the reader holds an unretained pointer to it, so it must outlive `reader`.
    private let rowStream: PNGRowStream?
    /// The deadline and cancellation libpng checks between rows; like `rowStream`, it outlives `reader`.
    let stopCheck = PNGStopCheck()
    /// Whether a whole-file decode may skip libpng's row loop (see ``decodeComplete(_:continuing:)``); false for the
    /// second attempt at a file whose image data surprised the direct path.
    let directImageData: Bool

    init(options: DecodeOptions, directImageData: Bool = true) {
        self.options = options
        self.directImageData = directImageData
        reader = cpng_reader_new(Int64(options.maxPixelCount))
        rowStream = options.thumbnailPixelSize == nil ? nil : PNGRowStream(options: options)
        if let reader, let rowStream { rowStream.attach(to: reader) }
        if let reader { stopCheck.attach(to: reader) }
        // Gray with gAMA is converted as RGB: Little CMS's gray-to-gray transform loses levels in the darks.
        if let reader, options.appliesPNGGamma, options.colorConversion?.converter != nil {
            cpng_reader_expand_gamma_gray(reader)
        }
    }

    // The reader goes first: it points at `rowStream` and `stopCheck`, which are released after deinit.
    deinit { cpng_reader_free(reader) }

    var state: cpng_state { cpng_reader_state(reader).pointee }

    /// One incremental step: its own deadline, checked before the bytes and between their rows.
    func append(_ bytes: Data) throws(ImageError) {
        stopCheck.start(options)
        try stopCheck.watch.check()
        try feed(bytes)
    }

    /// Feeds `bytes` to libpng under the clock already started by the caller.
    func feed(_ bytes: Data) throws(ImageError) {
        guard let reader else { throw .badImageData(reason: "PNG: out of memory") }
        let code = bytes.withUnsafeBytes { raw in
            cpng_reader_feed(reader, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try check(code)
    }

    func check(_ code: Int32) throws(ImageError) {
        switch code {
        case Int32(CPNG_OK): return
        case Int32(CPNG_TOO_LARGE):
            throw .imageTooLarge(width: Int(state.width), height: Int(state.height), limit: options.maxPixelCount)
        case Int32(CPNG_OUT_OF_MEMORY): throw .badImageData(reason: "PNG: out of memory")
        case Int32(CPNG_STOPPED): throw stopCheck.reason ?? .cancelled
        default:
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "PNG: \(message)")
        }
    }

    /// The pixels decoded so far, in the output layout.
    private func snapshot() -> PixelBuffer? {
        let state = self.state
        guard state.header_done != 0, let base = state.pixels else { return nil }
        let layout: PixelLayout =
            switch state.channels {
            case 1: .gray8;
            case 3: .rgb8;
            default: .rgba8
            }
        let count = Int(state.width) * Int(state.height) * Int(state.channels)
        return PixelBuffer(
            width: Int(state.width), height: Int(state.height), layout: layout,
            bytes: Array(UnsafeBufferPointer(start: base, count: count)))
    }

    /// The pixels so far in stored orientation: the downsampled rows of a streamed thumbnail, else the
    /// decoded image.
    private func output() -> PixelBuffer? {
        if state.streaming != 0 { return rowStream?.downsampler?.completedRows }
        return snapshot()
    }

    func partialImage() -> Image? {
        guard state.rows > 0 || state.pass > 0, let pixels = output() else { return nil }
        return makeImage(pixels, isIncomplete: state.finished == 0)
    }

    /// The ICC profile (iCCP), EXIF (eXIf) and XMP (iTXt) chunks read so far. With
    /// ``DecodeOptions/appliesPNGGamma``, a file with `gAMA` and neither `iCCP` nor `sRGB` gets the profile
    /// its converter builds from `gAMA` and `cHRM`, so the usual conversion to sRGB applies them.
    var metadata: ImageMetadata {
        let state = self.state
        var metadata = ImageMetadata()
        if let icc = state.icc {
            metadata.iccProfile = Data(bytes: icc, count: state.icc_size)
        } else if let space = gammaColorSpace(state), let converter = options.colorConversion?.converter {
            metadata.iccProfile = converter.iccProfile(for: space)
        }
        if let exif = state.exif { metadata.exif = Data(bytes: exif, count: state.exif_size) }
        if let xmp = state.xmp { metadata.xmp = Data(bytes: xmp, count: state.xmp_size) }
        return metadata
    }

    /// The colour space `gAMA` and `cHRM` describe, when ``DecodeOptions/appliesPNGGamma`` asks for it and
    /// no `sRGB` chunk says the file is sRGB (libpng keeps only a `gAMA` it found valid).
    private func gammaColorSpace(_ state: cpng_state) -> GammaColorSpace? {
        guard options.appliesPNGGamma, state.has_srgb == 0, state.gamma > 0 else { return nil }
        var chromaticities: GammaColorSpace.Chromaticities?
        if state.has_chrm != 0 {
            let c = withUnsafeBytes(of: state.chrm) { Array($0.bindMemory(to: Double.self)) }
            chromaticities = .init(
                whiteX: c[0], whiteY: c[1], redX: c[2], redY: c[3],
                greenX: c[4], greenY: c[5], blueX: c[6], blueY: c[7])
        }
        // A gray source was decoded as RGB for this (cpng_reader_expand_gamma_gray), so its space is RGB too.
        return GammaColorSpace(
            decodingExponent: 1 / state.gamma, chromaticities: chromaticities,
            isGray: state.channels == 1)
    }

    /// `pixels` (stored orientation: the whole image, or a thumbnail streamed at the size that fits once
    /// oriented) as the image the options ask for: EXIF orientation applied as browsers do for PNG unless
    /// the options say not to, then resized to the output size, exactly as for a complete file.
    func makeImage(_ pixels: PixelBuffer, isIncomplete: Bool) -> Image {
        options.image(from: pixels, format: .png, metadata: metadata, isIncomplete: isIncomplete)
    }

    /// Whether the whole image arrived; throws when the data was bad, or ended early and partial images
    /// are not allowed.
    func checkEnd() throws(ImageError) -> Bool {
        try check(state.code)
        if state.data_warning != 0 && !options.allowPartialImage {
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "PNG: \(message)")
        }
        guard state.header_done != 0 else {
            throw .badImageData(reason: "PNG: no image header (truncated or not a PNG)")
        }
        let complete = state.finished != 0 && state.missing_rows == 0
        if !complete && !options.allowPartialImage {
            throw .badImageData(reason: "PNG: the data ended before the image (truncated file)")
        }
        return complete
    }

    func finish() throws(ImageError) -> Image {
        let complete = try checkEnd()
        let pixels: PixelBuffer
        if state.streaming != 0, var downsampler = rowStream?.downsampler {
            pixels = downsampler.finish()
        } else if let whole = snapshot() {
            pixels = whole
        } else {
            throw .badImageData(reason: "PNG: no image header (truncated or not a PNG)")
        }
        return makeImage(pixels, isIncomplete: !complete)
    }
}
