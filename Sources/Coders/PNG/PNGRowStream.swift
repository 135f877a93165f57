internal import CPNG
import Foundation
import WebImageCore

/// Where a thumbnail decode sends libpng's rows: straight into a ``RowDownsampler``, so a thumbnail of a
/// large non-interlaced PNG holds the output and a few accumulator rows, never the full image.
///
/// The reader asks ``wantsRows(width:height:channels:)`` once the header is read; interlaced images
/// cannot stream (Adam7 fills every row in several passes) and are decoded whole, then resampled.
/// Because `ImageResampler` feeds the same downsampler row by row, a streamed thumbnail has exactly the
/// pixels of a full decode followed by a resample.
final class PNGRowStream {
    private let options: DecodeOptions
    private(set) var downsampler: RowDownsampler?
    /// The reader this stream is attached to; read only from its own callbacks, while it is alive.
    private var reader: OpaquePointer?

    init(options: DecodeOptions) { self.options = options }

    /// Streams only when the output is smaller than the image: otherwise a plain decode is cheaper.
    /// `orientation` is the EXIF orientation read before the image data: when it will turn the image a
    /// quarter, the rows are downsampled to the turned output size, so the thumbnail fits once upright.
    func wantsRows(width: Int, height: Int, channels: Int, orientation: ImageOrientation) -> Bool {
        var size = options.outputSize(width: width, height: height)
        if options.applyOrientation && orientation.swapsDimensions {
            let upright = options.outputSize(width: height, height: width)
            size = PixelSize(width: upright.height, height: upright.width)
        }
        guard size.width < width || size.height < height else { return false }
        let layout: PixelLayout =
            switch channels {
            case 1: .gray8;
            case 3: .rgb8;
            default: .rgba8
            }
        downsampler = RowDownsampler(
            sourceWidth: width, sourceHeight: height, layout: layout,
            width: size.width, height: size.height)
        return true
    }

    /// The EXIF orientation among the chunks the reader has seen (eXIf comes before the image data in
    /// practice; one after it is applied to the finished thumbnail instead).
    private var orientationReadSoFar: ImageOrientation {
        guard let reader, let exif = cpng_reader_state(reader).pointee.exif else { return .up }
        let size = cpng_reader_state(reader).pointee.exif_size
        return ExifOrientation.orientation(fromTIFF: Data(bytes: exif, count: size)) ?? .up
    }

    func consume(_ row: UnsafePointer<UInt8>) {
        guard let width = downsampler?.sourceWidth, let channels = downsampler?.layout.bytesPerPixel,
            downsampler?.isComplete == false
        else { return }
        downsampler?.consume(row: UnsafeBufferPointer(start: row, count: width * channels))
    }

    /// Installs the stream on `reader`. The reader keeps an unretained pointer to `self`: the decoder that
    /// owns both frees the reader first (see ``PNGIncrementalDecoder``'s deinit).
    func attach(to reader: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        self.reader = reader
        cpng_reader_stream_rows(
            reader,
            { context, width, height, channels in
                let stream = Unmanaged<PNGRowStream>.fromOpaque(context!).takeUnretainedValue()
                return stream.wantsRows(
                    width: Int(width), height: Int(height), channels: Int(channels),
                    orientation: stream.orientationReadSoFar) ? 1 : 0
            },
            { context, row, _ in
                guard let row else { return }
                Unmanaged<PNGRowStream>.fromOpaque(context!).takeUnretainedValue().consume(row)
            }, context)
    }
}
