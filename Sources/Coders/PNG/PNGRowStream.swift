import CPNG
import WebImageCore

/// Where a thumbnail decode sends libpng's rows: straight into a ``RowDownsampler``, so a thumbnail of a
/// large non-interlaced PNG holds the output and a few accumulator rows, never the full image.
///
/// The reader asks ``wantsRows(width:height:channels:)`` once the header is read; interlaced images
/// cannot stream (Adam7 fills every row in several passes) and are decoded whole, then resampled.
/// Because ``ImageResampler`` feeds the same downsampler row by row, a streamed thumbnail has exactly the
/// pixels of a full decode followed by a resample.
final class PNGRowStream {
    private let options: DecodeOptions
    private(set) var downsampler: RowDownsampler?

    init(options: DecodeOptions) { self.options = options }

    /// Streams only when the output is smaller than the image: otherwise a plain decode is cheaper.
    func wantsRows(width: Int, height: Int, channels: Int) -> Bool {
        let size = options.outputSize(width: width, height: height)
        guard size.width < width || size.height < height else { return false }
        let layout: PixelLayout = switch channels { case 1: .gray8; case 3: .rgb8; default: .rgba8 }
        downsampler = RowDownsampler(sourceWidth: width, sourceHeight: height, layout: layout,
                                     width: size.width, height: size.height)
        return true
    }

    func consume(_ row: UnsafePointer<UInt8>) {
        guard let width = downsampler?.sourceWidth, let channels = downsampler?.layout.bytesPerPixel,
              downsampler?.isComplete == false else { return }
        downsampler?.consume(row: UnsafeBufferPointer(start: row, count: width * channels))
    }

    /// Installs the stream on `reader`. The reader keeps an unretained pointer to `self`: the decoder that
    /// owns both frees the reader first (see ``PNGIncrementalDecoder``'s deinit).
    func attach(to reader: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        cpng_reader_stream_rows(reader, { context, width, height, channels in
            let stream = Unmanaged<PNGRowStream>.fromOpaque(context!).takeUnretainedValue()
            return stream.wantsRows(width: Int(width), height: Int(height), channels: Int(channels)) ? 1 : 0
        }, { context, row, _ in
            guard let row else { return }
            Unmanaged<PNGRowStream>.fromOpaque(context!).takeUnretainedValue().consume(row)
        }, context)
    }
}
