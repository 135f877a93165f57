import CJPEG
import Foundation
import WebImageCore

/// One libjpeg decoder, fed a whole file or bytes as they arrive, and the ``Image`` it yields.
///
/// ``JPEGCoder`` and ``JPEGIncrementalDecoder`` both decode through it, so a file gives the same pixels
/// either way: the same DCT scale for thumbnails, pixel limit, EXIF orientation, ICC profile and final
/// resample. The C decoder (`cjpeg_decoder`) is created in `init` and freed in `deinit`; nothing else
/// holds the pointer.
final class JPEGDecompressor {
    /// The value of rows a single-scan partial image has not received yet: mid gray, which is also what
    /// libjpeg shows for data that never came.
    static let missingRowValue: UInt8 = 128

    let options: DecodeOptions
    private let decoder: OpaquePointer

    /// - Parameters:
    ///   - skipsUnusedScans: at DCT scale 1/8, pass over AC scans the output never reads
    ///     (`CJPEG_SKIP_UNUSED_SCANS`). Tests turn it off to compare against decoding every scan.
    ///   - sparseCoefficients: at DCT scale 1/8, keep a progressive file's coefficient buffer sparse
    ///     (`CJPEG_SPARSE_COEFFICIENTS`). Tests turn it off to compare against libjpeg's own buffer.
    init(options: DecodeOptions, skipsUnusedScans: Bool = true, sparseCoefficients: Bool = true) throws(ImageError) {
        self.options = options
        // The DCT scale must leave at least the thumbnail size.
        let minimum = options.thumbnailPixelSize ?? PixelSize(width: 0, height: 0)
        let flags = (skipsUnusedScans ? Int32(CJPEG_SKIP_UNUSED_SCANS) : 0) | (sparseCoefficients ? Int32(CJPEG_SPARSE_COEFFICIENTS) : 0)
        guard let decoder = cjpeg_decoder_new(Int32(clamping: max(0, minimum.width)), Int32(clamping: max(0, minimum.height)),
                                              Int64(options.maxPixelCount), flags)
        else { throw .badImageData(reason: "JPEG: out of memory") }
        self.decoder = decoder
    }

    deinit { cjpeg_decoder_free(decoder) }

    /// What the decoder knows so far (a copy).
    var state: cjpeg_state { cjpeg_decoder_state(decoder).pointee }

    // MARK: Feeding

    /// Decodes a whole file straight into the returned buffer, the only copy of the pixels.
    func decode(_ data: Data) throws(ImageError) -> PixelBuffer {
        var code = Int32(CJPEG_OK)
        var bytes: [UInt8] = []
        data.withUnsafeBytes { raw in
            // `raw` stays valid for both calls, as cjpeg_decoder_start requires.
            code = cjpeg_decoder_start(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            let state = self.state
            guard code == CJPEG_OK, state.header_done != 0 else { return }
            let count = Int(state.width) * Int(state.height) * Int(state.channels)
            bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                code = cjpeg_decoder_finish_into(decoder, buffer.baseAddress)
                initialized = count
            }
        }
        try check(code)
        let state = self.state
        guard state.header_done != 0 else { throw .badImageData(reason: "JPEG: no image") }
        return PixelBuffer(width: Int(state.width), height: Int(state.height), layout: Self.layout(state), bytes: bytes)
    }

    /// Feeds the next bytes and decodes as far as they go.
    func append(_ bytes: Data) throws(ImageError) {
        let code = bytes.withUnsafeBytes { raw in
            cjpeg_decoder_append(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try check(code)
    }

    /// No more bytes will come: decodes the rest (gray where a truncated file has no data).
    func finish() throws(ImageError) { try check(cjpeg_decoder_finish(decoder)) }

    /// Several scans: renders the scans complete so far when newer ones arrived since the last render (one
    /// output pass over the coefficients; the input is never decoded again).
    func renderCompleteScans() { cjpeg_decoder_render(decoder) }

    private func check(_ code: Int32) throws(ImageError) {
        switch code {
        case Int32(CJPEG_OK): return
        case Int32(CJPEG_TOO_LARGE):
            let state = self.state
            throw .imageTooLarge(width: Int(state.image_width), height: Int(state.image_height), limit: options.maxPixelCount)
        case Int32(CJPEG_OUT_OF_MEMORY): throw .badImageData(reason: "JPEG: out of memory")
        case Int32(CJPEG_MISUSE): throw .badImageData(reason: "JPEG: decoder called out of order")
        default:
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "JPEG: \(message)")
        }
    }

    // MARK: Images

    private static func layout(_ state: cjpeg_state) -> PixelLayout { state.channels == 1 ? .gray8 : .rgb8 }

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
            (buffer.baseAddress! + decoded).initialize(repeating: Self.missingRowValue, count: stride * height - decoded)
            initialized = stride * height
        }
        return PixelBuffer(width: Int(state.width), height: height, layout: Self.layout(state), bytes: bytes)
    }

    /// The image of the complete file: fails on a truncated file unless ``DecodeOptions/allowPartialImage``.
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
        options.image(from: pixels, format: .jpeg, metadata: metadata, isIncomplete: isIncomplete)
    }

    private var metadata: ImageMetadata {
        let state = self.state
        var metadata = ImageMetadata()
        if let exif = state.exif { metadata.exif = Data(bytes: exif, count: state.exif_size) }
        if let icc = state.icc { metadata.iccProfile = Data(bytes: icc, count: state.icc_size) }
        return metadata
    }
}
