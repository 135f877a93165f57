import CPNG
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

    init(options: DecodeOptions) {
        self.options = options
        reader = cpng_reader_new(Int64(options.maxPixelCount))
        rowStream = options.thumbnailPixelSize == nil ? nil : PNGRowStream(options: options)
        if let reader, let rowStream { rowStream.attach(to: reader) }
    }

    // The reader goes first: it points at `rowStream`, which is released after deinit.
    deinit { cpng_reader_free(reader) }

    var state: cpng_state { cpng_reader_state(reader).pointee }

    func append(_ bytes: Data) throws(ImageError) {
        guard let reader else { throw .badImageData(reason: "PNG: out of memory") }
        let code = bytes.withUnsafeBytes { raw in
            cpng_reader_feed(reader, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try check(code)
    }

    private func check(_ code: Int32) throws(ImageError) {
        switch code {
        case Int32(CPNG_OK): return
        case Int32(CPNG_TOO_LARGE):
            throw .imageTooLarge(width: Int(state.width), height: Int(state.height), limit: options.maxPixelCount)
        case Int32(CPNG_OUT_OF_MEMORY): throw .badImageData(reason: "PNG: out of memory")
        default:
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "PNG: \(message)")
        }
    }

    /// The pixels decoded so far, in the output layout.
    private func snapshot() -> PixelBuffer? {
        let state = self.state
        guard state.header_done != 0, let base = state.pixels else { return nil }
        let layout: PixelLayout = switch state.channels { case 1: .gray8; case 3: .rgb8; default: .rgba8 }
        let count = Int(state.width) * Int(state.height) * Int(state.channels)
        return PixelBuffer(width: Int(state.width), height: Int(state.height), layout: layout,
                           bytes: Array(UnsafeBufferPointer(start: base, count: count)))
    }

    /// The output so far: the downsampled rows of a streamed thumbnail, else the decoded pixels resized.
    private func output() -> PixelBuffer? {
        if state.streaming != 0 { return rowStream?.downsampler?.completedRows }
        return snapshot().map(options.resizedToOutput)
    }

    func partialImage() -> Image? {
        guard state.rows > 0 || state.pass > 0, let pixels = output() else { return nil }
        var image = Image(pixels: pixels, format: .png, scale: options.scale)
        image.isIncomplete = state.finished == 0
        return image
    }

    /// Whether the whole image arrived; throws when the data was bad, or ended early and partial images
    /// are not allowed.
    func checkEnd() throws(ImageError) -> Bool {
        try check(state.code)
        if state.data_warning != 0 && !options.allowPartialImage {
            let message = withUnsafeBytes(of: state.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .badImageData(reason: "PNG: \(message)")
        }
        guard state.header_done != 0 else { throw .badImageData(reason: "PNG: no image header (truncated or not a PNG)") }
        let complete = state.finished != 0
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
            pixels = options.resizedToOutput(whole)
        } else {
            throw .badImageData(reason: "PNG: no image header (truncated or not a PNG)")
        }
        var image = Image(pixels: pixels, format: .png, scale: options.scale)
        image.isIncomplete = !complete
        return image
    }
}
