internal import CJPEG
import Foundation
import WebImageCore

/// One libjpeg decoder, fed a whole file or bytes as they arrive, and the `Image` it yields.
///
/// ``JPEGCoder`` and ``JPEGIncrementalDecoder`` both decode through it, so a file gives the same pixels
/// either way: the same DCT scale for thumbnails, pixel limit, EXIF orientation, ICC profile and final
/// resample. The C decoder (`cjpeg_decoder`) is created in `init` and freed in `deinit`; nothing else
/// holds the pointer.
///
/// Budgets: the C decoder refuses scans past `DecodeOptions/maxProgressiveScanCount` and work past
/// `DecodeOptions/maxTotalPixelCount` (see `cjpeg_decoder_new` for what counts), and each call into it
/// (a whole decode, an append, a render, the finish) runs under its own `DecodeWatch` (time limit and
/// cancellation), checked per row group, iMCU row, scan and output pass.
final class JPEGDecompressor {
    /// The value of rows a single-scan partial image has not received yet: mid gray, which is also what
    /// libjpeg shows for data that never came.
    static let missingRowValue: UInt8 = 128

    let options: DecodeOptions
    private let decoder: OpaquePointer
    /// The DCT scale was chosen (after the header, from the image's size and EXIF orientation).
    private var scaleChosen = false
    /// Why a call stopped (time or cancellation): the C decoder only keeps `CJPEG_STOPPED`, and later
    /// calls report the same reason.
    private var stopReason: ImageError?

    /// - Parameters:
    ///   - skipsUnusedScans: at DCT scale 1/8, pass over AC scans the output never reads
    ///     (`CJPEG_SKIP_UNUSED_SCANS`). Tests turn it off to compare against decoding every scan.
    ///   - sparseCoefficients: at DCT scale 1/8, keep a progressive file's coefficient buffer sparse
    ///     (`CJPEG_SPARSE_COEFFICIENTS`). Tests turn it off to compare against libjpeg's own buffer.
    init(options: DecodeOptions, skipsUnusedScans: Bool = true, sparseCoefficients: Bool = true) throws(ImageError) {
        self.options = options
        let flags =
            (skipsUnusedScans ? Int32(CJPEG_SKIP_UNUSED_SCANS) : 0)
            | (sparseCoefficients ? Int32(CJPEG_SPARSE_COEFFICIENTS) : 0)
            | (options.colorConversion?.converter != nil ? Int32(CJPEG_KEEP_CMYK_WITH_PROFILE) : 0)
        guard
            let decoder = cjpeg_decoder_new(
                Int64(options.maxPixelCount), Int32(clamping: options.maxProgressiveScanCount),
                Int64(options.maxTotalPixelCount), flags)
        else { throw .badImageData(reason: "JPEG: out of memory") }
        self.decoder = decoder
    }

    deinit { cjpeg_decoder_free(decoder) }

    /// What the decoder knows so far (a copy).
    var state: cjpeg_state { cjpeg_decoder_state(decoder).pointee }

    // MARK: Feeding

    /// Decodes a whole file straight into the returned buffer, the only copy of the pixels.
    func decode(_ data: Data) throws(ImageError) -> PixelBuffer {
        var bytes: [UInt8] = []
        let code = run { () -> Int32 in
            data.withUnsafeBytes { raw in
                // `raw` stays valid for every call below, as cjpeg_decoder_start requires.
                var code = cjpeg_decoder_start(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
                if code == CJPEG_OK { code = chooseScaleAfterHeader() }
                let state = self.state
                guard code == CJPEG_OK, state.header_done != 0 else { return code }
                let count = Int(state.width) * Int(state.height) * Int(state.channels)
                bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    code = cjpeg_decoder_finish_into(decoder, buffer.baseAddress)
                    initialized = count
                }
                return code
            }
        }
        try check(code)
        let state = self.state
        guard state.header_done != 0 else { throw .badImageData(reason: "JPEG: no image") }
        return PixelBuffer(width: Int(state.width), height: Int(state.height), layout: Self.layout(state), bytes: bytes)
    }

    /// Feeds the next bytes and decodes as far as they go.
    func append(_ bytes: Data) throws(ImageError) {
        let code = run {
            var code = bytes.withUnsafeBytes { raw in
                cjpeg_decoder_append(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            }
            if code == CJPEG_OK { code = chooseScaleAfterHeader() }
            return code
        }
        try check(code)
    }

    /// No more bytes will come: decodes the rest (gray where a truncated file has no data).
    func finish() throws(ImageError) {
        try check(
            run {
                let code = cjpeg_decoder_finish(decoder)
                return code == CJPEG_OK ? chooseScaleAfterHeader() : code
            })
    }

    /// Several scans: renders the scans complete so far when newer ones arrived since the last render (one
    /// output pass over the coefficients; the input is never decoded again). Skipped when the work budget
    /// could not afford it and the final pass; a failure is reported by the next append or finish.
    func renderCompleteScans() { _ = run { cjpeg_decoder_render(decoder) } }

    /// Runs C calls under a new `DecodeWatch`: every call into the decoder is one budgeted step.
    private func run(_ calls: () -> Int32) -> Int32 {
        let stopCheck = JPEGStopCheck(watch: options.startWatch())
        let code = stopCheck.run(on: decoder, calls)
        if stopReason == nil { stopReason = stopCheck.reason }
        return code
    }

    /// Once the header is read: the smallest DCT scale that still leaves `DecodeOptions/thumbnailReducingGap`
    /// times the output size (computed from the real image size, upright), or the full size when none
    /// does, so the final Lanczos3 resample has about that many source pixels per output pixel to weigh
    /// (two by default, libvips's rule for JPEG shrink-on-load; the DCT's own scaling is a plain block
    /// average). Then decoding goes on.
    private func chooseScaleAfterHeader() -> Int32 {
        let state = self.state
        guard state.header_read != 0, !scaleChosen else { return state.code }
        scaleChosen = true
        var minimum = PixelSize(width: 0, height: 0)
        if options.thumbnailPixelSize != nil {
            let orientation = metadata.exif.flatMap(ExifOrientation.orientation(fromTIFF:)) ?? .up
            let output = options.outputSize(
                storedWidth: Int(state.image_width), storedHeight: Int(state.image_height),
                orientation: orientation)
            // In the stored orientation, which the DCT scale applies to.
            let turned = options.applyOrientation && orientation.swapsDimensions
            let stored = turned ? PixelSize(width: output.height, height: output.width) : output
            let gap = max(1, options.thumbnailReducingGap)
            minimum = PixelSize(
                width: Int((Double(stored.width) * gap).rounded(.up)),
                height: Int((Double(stored.height) * gap).rounded(.up)))
        }
        return cjpeg_decoder_choose_scale(decoder, Int32(clamping: minimum.width), Int32(clamping: minimum.height))
    }

    private func check(_ code: Int32) throws(ImageError) {
        switch code {
        case Int32(CJPEG_OK): return
        case Int32(CJPEG_TOO_LARGE):
            let state = self.state
            throw .imageTooLarge(
                width: Int(state.image_width), height: Int(state.image_height), limit: options.maxPixelCount)
        case Int32(CJPEG_STOPPED): throw stopReason ?? .cancelled
        case Int32(CJPEG_TOO_MANY_SCANS):
            throw .decodeBudgetExceeded(
                .progressiveScans, value: Int(state.scans), limit: options.maxProgressiveScanCount)
        case Int32(CJPEG_TOO_MUCH_WORK):
            throw .decodeBudgetExceeded(.totalPixels, value: Int(state.work_pixels), limit: options.maxTotalPixelCount)
        case Int32(CJPEG_OUT_OF_MEMORY): throw .badImageData(reason: "JPEG: out of memory")
        case Int32(CJPEG_MISUSE): throw .badImageData(reason: "JPEG: decoder called out of order")
        default:
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "JPEG: \(message)")
        }
    }

    // MARK: Images

    /// 4 channels are CMYK samples (see ``JPEGCMYK``), carried in an `.rgba8`-sized buffer until ``image(_:isIncomplete:)``.
    private static func layout(_ state: cjpeg_state) -> PixelLayout {
        switch state.channels {
        case 1: .gray8;
        case 4: .rgba8;
        default: .rgb8
        }
    }

    /// A copy of the decoder's own pixels, nil before the output size is known. Single-scan rows not
    /// decoded yet are ``missingRowValue``; for several scans, call only once a scan has been rendered.
    func snapshot() -> PixelBuffer? {
        let state = self.state
        guard state.header_done != 0, let source = state.pixels else { return nil }
        let stride = Int(state.width) * Int(state.channels), height = Int(state.height)
        let rows = state.progressive != 0 || state.finished != 0 ? height : min(height, Int(state.rows))
        let bytes = [UInt8](unsafeUninitializedCapacity: stride * height) { buffer, initialized in
            let decoded = stride * rows
            buffer.baseAddress!.update(from: source, count: decoded)
            (buffer.baseAddress! + decoded).initialize(
                repeating: Self.missingRowValue, count: stride * height - decoded)
            initialized = stride * height
        }
        return PixelBuffer(width: Int(state.width), height: height, layout: Self.layout(state), bytes: bytes)
    }

    /// The image of the complete file: fails on a truncated file unless `DecodeOptions/allowPartialImage`.
    func completeImage(_ pixels: PixelBuffer) throws(ImageError) -> Image {
        let state = self.state
        try options.checkDimensions(width: Int(state.image_width), height: Int(state.image_height))
        if state.premature_end != 0 && !options.allowPartialImage {
            throw .badImageData(reason: "JPEG: premature end of data (truncated file)")
        }
        return image(pixels, isIncomplete: state.premature_end != 0)
    }

    /// `pixels` (output-sized, from this decoder) as an image: metadata, EXIF orientation and the final
    /// thumbnail resample, exactly as for a complete file.
    func image(_ pixels: PixelBuffer, isIncomplete: Bool) -> Image {
        let state = self.state
        var metadata = self.metadata, pixels = pixels
        if state.channels == 4 { pixels = JPEGCMYK.toRGB(pixels, metadata: &metadata, options: options) }
        return options.image(
            from: pixels, format: .jpeg, metadata: metadata, isIncomplete: isIncomplete,
            storedSize: PixelSize(width: Int(state.image_width), height: Int(state.image_height)))
    }

    private var metadata: ImageMetadata {
        let state = self.state
        var metadata = ImageMetadata()
        if let exif = state.exif { metadata.exif = Data(bytes: exif, count: state.exif_size) }
        if let icc = state.icc { metadata.iccProfile = Data(bytes: icc, count: state.icc_size) }
        return metadata
    }
}
