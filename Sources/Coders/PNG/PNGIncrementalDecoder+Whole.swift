internal import CPNG
import Foundation
import WebImageCore

extension PNGIncrementalDecoder {
    /// Decodes a whole file held in memory, writing rows straight into the array the image keeps: the
    /// reader is fed up to the first `IDAT` header (which reads the header and sets up the transforms),
    /// then lent that array for the image data. A full decode so holds one copy of the pixels, not two.
    ///
    /// Files that need none of libpng's transforms, with nothing but `IEND` after their image data, skip
    /// its row loop (`cpng_reader_decode_image_data`: zlib and a whole-pixel filter reconstruction,
    /// several times faster for photos). A surprise inside their image data makes the decode start over
    /// with libpng alone (`directImageData` false), so damaged files behave exactly as before. The second
    /// attempt continues the first one's clock (`watch`), so a damaged file cannot double its time budget.
    func decodeComplete(_ data: Data, continuing watch: DecodeWatch? = nil) throws(ImageError) -> Image {
        guard let reader else { throw .badImageData(reason: "PNG: out of memory") }
        // One clock for the whole call, checked between rows.
        if let watch { stopCheck.resume(watch) } else { stopCheck.start(options) }
        try stopCheck.watch.check()
        cpng_reader_defer_pixels(reader)
        let split = Self.endOfFirstIDATHeader(in: data) ?? data.count
        try feed(data.prefix(split))
        let state = self.state
        guard state.header_done != 0, state.streaming == 0, state.pixels == nil else {
            // No header yet (the error comes at the end), or a streamed thumbnail: the plain path.
            guard try decodeImageData(data, split: split) else { return try startOver(data) }
            return try finish()
        }
        let width = Int(state.width), height = Int(state.height), channels = Int(state.channels)
        let rowBytes = width * channels
        var failure: ImageError? = nil
        var retry = false
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            // Adam7 passes fill each row piecemeal: start from zeros so a cut-off file shows no garbage.
            if state.interlaced != 0 { buffer.initialize(repeating: 0) }
            cpng_reader_use_pixels(reader, buffer.baseAddress)
            do throws(ImageError) { retry = try !decodeImageData(data, split: split) } catch { failure = error }
            cpng_reader_use_pixels(reader, nil)
            if retry {
                count = 0
                return
            }
            let after = self.state
            if after.interlaced == 0 && (after.finished == 0 || after.missing_rows != 0) {
                // Rows that never arrived are zero, as in a partial image.
                let done = min(height, Int(after.rows)) * rowBytes
                buffer.baseAddress.map { ($0 + done).initialize(repeating: 0, count: rowBytes * height - done) }
            }
            count = rowBytes * height
        }
        if let failure { throw failure }
        if retry { return try startOver(data) }
        let complete = try checkEnd()
        let layout: PixelLayout =
            switch channels {
            case 1: .gray8;
            case 3: .rgb8;
            default: .rgba8
            }
        return makeImage(
            PixelBuffer(width: width, height: height, layout: layout, bytes: bytes), isIncomplete: !complete)
    }

    /// Decodes the image data from `split` on: directly when the file allows it, else by feeding libpng.
    /// False when the direct path found a surprise and the file must be decoded again (``startOver(_:)``).
    private func decodeImageData(_ data: Data, split: Int) throws(ImageError) -> Bool {
        switch try decodeImageDataDirectly(data, split: split) {
        case .decoded: return true
        case .declined:
            try feed(data.dropFirst(split))
            return true
        case .retry: return false
        }
    }

    /// The whole decode again, by a new reader with libpng's row loop, on the same clock.
    private func startOver(_ data: Data) throws(ImageError) -> Image {
        try PNGIncrementalDecoder(options: options, directImageData: false)
            .decodeComplete(data, continuing: stopCheck.watch)
    }

    /// How the direct image-data path ended.
    enum DirectImageData {
        /// Every row was decoded and the file ended cleanly.
        case decoded
        /// The file needs libpng's row loop; nothing was touched.
        case declined
        /// The image data held a surprise: decode the file again with libpng alone.
        case retry
    }

    /// Runs the direct image-data path on the bytes from the first `IDAT` chunk on (`split` is just past
    /// its header), when this decoder may.
    func decodeImageDataDirectly(_ data: Data, split: Int) throws(ImageError) -> DirectImageData {
        // The C side checks that an IDAT starts 8 bytes before `split` (there is none when `split` is the end).
        guard directImageData, let reader, state.header_done != 0, split >= 16, split <= data.count else {
            return .declined
        }
        let code = data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress! + (split - 8)
            return cpng_reader_decode_image_data(reader, base, raw.count - (split - 8))
        }
        switch code {
        case Int32(CPNG_OK): return .decoded
        case Int32(CPNG_DECLINED): return .declined
        case Int32(CPNG_RETRY): return .retry
        default:
            try check(code)
            return .declined
        }
    }

    /// The offset just past the first `IDAT` chunk's length and type, walking the chunk lengths (bounds
    /// checked); nil when there is none in `data`.
    static func endOfFirstIDATHeader(in data: Data) -> Int? {
        let bytes = data.startIndex
        var offset = 8  // the signature
        while offset + 8 <= data.count {
            let at = bytes + offset
            let length = Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
            if data[at + 4] == 0x49, data[at + 5] == 0x44, data[at + 6] == 0x41, data[at + 7] == 0x54 {  // "IDAT"
                return offset + 8
            }
            offset += 12 + length
        }
        return nil
    }
}
