import Foundation
import WebImageCore

extension JPEGCoder: ProgressiveImageCoder {
    public func canDecodeIncrementally(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(options: options)
    }
}

/// Shows a JPEG while it downloads, with one libjpeg decoder that suspends when it runs out of bytes and
/// resumes where it stopped, so every byte is decoded once.
///
/// - A single-scan (baseline) file shows the rows decoded so far; rows not received yet are gray.
/// - A progressive file is decoded in libjpeg's buffered-image mode: a partial image shows every scan
///   received so far over the whole picture (blurry first, then sharper).
///
/// A partial image costs a copy of the pixels (and, for a progressive file, one output pass over the
/// coefficients), so one is made only when something new can be shown: a newly complete scan, or at least
/// a ``partialRowFraction`` of the rows.
final class JPEGIncrementalDecoder: IncrementalImageDecoder {
    /// A baseline file makes a new partial image only when at least 1/16 of its rows are new: at most 16
    /// copies of the pixels, so a large photo arriving in small chunks is not copied hundreds of times.
    static let partialRowFraction = 16

    private let decompressor: Result<JPEGDecompressor, ImageError>
    private var lastPartial: Image?
    /// Rows (single scan) or scans (progressive) that `lastPartial` shows.
    private var progressShown = 0

    init(options: DecodeOptions) {
        decompressor = Result { () throws(ImageError) in try JPEGDecompressor(options: options) }
    }

    func append(_ bytes: Data) throws(ImageError) {
        try decompressor.get().append(bytes)
    }

    func partialImage() -> Image? {
        guard case .success(let decompressor) = decompressor else { return nil }
        var state = decompressor.state
        guard state.code == 0, state.header_done != 0, state.finished == 0 else { return lastPartial }
        let progress: Int
        if state.progressive != 0 {
            decompressor.renderCompleteScans()
            state = decompressor.state
            progress = Int(state.scans_shown)
        } else {
            let step = max(1, Int(state.height) / Self.partialRowFraction)
            progress =
                Int(state.rows) >= progressShown + step || Int(state.rows) == Int(state.height)
                ? Int(state.rows) : progressShown
        }
        guard progress > progressShown, let pixels = decompressor.snapshot() else { return lastPartial }
        progressShown = progress
        lastPartial = decompressor.image(pixels, isIncomplete: true)
        return lastPartial
    }

    func finish() throws(ImageError) -> Image {
        let decompressor = try decompressor.get()
        try decompressor.finish()
        guard let pixels = decompressor.snapshot() else { throw .badImageData(reason: "JPEG: no image") }
        return try decompressor.completeImage(pixels)
    }
}
