internal import CWebP
import Foundation
import WebImageCore

/// Decodes one still WebP bitstream (a file or an animation frame) into a new pixel buffer.
///
/// The bytes go through libwebp's incremental decoder in growing prefixes (from ``chunkSize``; without copying:
/// `WebPIUpdate` reads the caller's buffer), so the decode's watch is checked between chunks and a
/// deadline or a cancellation stops it. libwebp's Huffman table memory is checked first
/// (``WebPTableMemoryCheck``).
enum WebPStillDecoder {
    /// Bytes given to libwebp before the first check of the watch: 64 KiB, a few milliseconds of decoding
    /// for real files. Each later step gives as many bytes as were given before (the prefix doubles), so
    /// a file takes about log2(size / 64 KiB) steps: libwebp's lossless decoder restarts from its last
    /// saved row at every suspension, and 64 KiB steps cost a 12 MP lossless decode 18 % (coder-bench).
    static let chunkSize = 64 << 10

    /// Decodes `data`, a `source`-sized bitstream, to `size` (libwebp's scaler when they differ).
    static func decode(
        _ data: Data, layout: PixelLayout, size: PixelSize, source: PixelSize,
        watch: DecodeWatch
    ) throws(ImageError) -> PixelBuffer {
        try watch.check()
        let checked: Result<WebPTableMemoryCheck.Outcome, ImageError> = data.withUnsafeBytes { raw in
            do throws(ImageError) {
                return .success(try WebPTableMemoryCheck.check(raw, width: source.width, height: source.height))
            } catch { return .failure(error) }
        }
        _ = try checked.get()
        if let declared = riffFileSize(data), declared > data.count {
            // libwebp's whole-file decoder refuses a file shorter than its RIFF header says; the
            // incremental one would wait for the missing bytes, so the check is ours.
            throw WebPStatus.error(VP8_STATUS_NOT_ENOUGH_DATA, "decoding failed (the RIFF size is past the end)")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .badImageData(reason: "WebP: library version mismatch") }
        let stride = size.width * layout.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: stride * size.height)
        let decoded: Result<Void, ImageError> = pixels.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBytes { raw in
                config.output.colorspace = layout == .rgba8 ? MODE_RGBA : MODE_RGB
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = out.baseAddress
                config.output.u.RGBA.stride = Int32(stride)
                config.output.u.RGBA.size = out.count
                if size != source {
                    config.options.use_scaling = 1
                    config.options.scaled_width = Int32(size.width)
                    config.options.scaled_height = Int32(size.height)
                }
                // libwebp keeps pointers into `config` and reads `raw` while the decoder lives, which ends
                // inside these closures; it writes only into `out`.
                return withUnsafeMutablePointer(to: &config) { settings in
                    feedInChunks(raw, settings: settings, watch: watch)
                }
            }
        }
        WebPFreeDecBuffer(&config.output)
        try decoded.get()
        return PixelBuffer(width: size.width, height: size.height, layout: layout, bytes: pixels)
    }

    /// The file size a RIFF header declares (its size field plus the 8 bytes before it); nil without one.
    private static func riffFileSize(_ data: Data) -> Int? {
        guard data.count >= 8, data.starts(with: Array("RIFF".utf8)) else { return nil }
        let start = data.startIndex
        return (0..<4).reduce(0) { $0 | Int(data[start + 4 + $1]) << (8 * $1) } + 8
    }

    /// Runs libwebp's incremental decoder over growing prefixes of `bytes`, checking `watch` between them.
    private static func feedInChunks(
        _ bytes: UnsafeRawBufferPointer, settings: UnsafeMutablePointer<WebPDecoderConfig>,
        watch: DecodeWatch
    ) -> Result<Void, ImageError> {
        guard let decoder = WebPIDecode(nil, 0, settings) else {
            return .failure(.badImageData(reason: "WebP: cannot create the decoder"))
        }
        defer { WebPIDelete(decoder) }
        let base = bytes.bindMemory(to: UInt8.self).baseAddress
        var fed = 0
        repeat {
            fed = min(bytes.count, fed + max(chunkSize, fed))
            let status = WebPIUpdate(decoder, base, fed)
            if status == VP8_STATUS_OK { return .success(()) }
            guard status == VP8_STATUS_SUSPENDED else { return .failure(WebPStatus.error(status, "decoding failed")) }
            if let stop = watch.stopReason { return .failure(stop) }
        } while fed < bytes.count
        // Every byte was given and libwebp still waits for more: the data is cut short.
        return .failure(WebPStatus.error(VP8_STATUS_NOT_ENOUGH_DATA, "decoding failed (truncated data)"))
    }
}

/// EXIF, ICC and XMP chunks of a WebP container.
enum WebPChunks {
    static func metadata(of data: Data) -> ImageMetadata {
        var metadata = ImageMetadata()
        data.withUnsafeBytes { raw in
            var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            guard let demux = WebPDemux(&webp) else { return }
            defer { WebPDemuxDelete(demux) }
            func chunk(_ fourcc: String) -> Data? {
                var iterator = WebPChunkIterator()
                guard WebPDemuxGetChunk(demux, fourcc, 1, &iterator) != 0 else { return nil }
                defer { WebPDemuxReleaseChunkIterator(&iterator) }
                return Data(bytes: iterator.chunk.bytes, count: iterator.chunk.size)
            }
            metadata.iccProfile = chunk("ICCP")
            metadata.exif = chunk("EXIF").map { $0.starts(with: Array("Exif\0\0".utf8)) ? $0.dropFirst(6) : $0 }.map {
                Data($0)
            }
            metadata.xmp = chunk("XMP ")
        }
        return metadata
    }
}
