import CWebP
import Foundation
import WebImageCore

/// Decodes one still WebP bitstream (a file or an animation frame) into a new pixel buffer.
enum WebPStillDecoder {
    static func decode(_ data: Data, layout: PixelLayout, width: Int, height: Int, scaled: Bool) throws(ImageError) -> PixelBuffer {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .badImageData(reason: "WebP: library version mismatch") }
        let stride = width * layout.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: stride * height)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBytes { raw -> VP8StatusCode in
                config.output.colorspace = layout == .rgba8 ? MODE_RGBA : MODE_RGB
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = out.baseAddress
                config.output.u.RGBA.stride = Int32(stride)
                config.output.u.RGBA.size = out.count
                if scaled {
                    config.options.use_scaling = 1
                    config.options.scaled_width = Int32(width)
                    config.options.scaled_height = Int32(height)
                }
                return WebPDecode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &config)
            }
        }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else {
            throw .badImageData(reason: "WebP: decoding failed (status \(status.rawValue))")
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: pixels)
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
            metadata.exif = chunk("EXIF").map { $0.starts(with: Array("Exif\0\0".utf8)) ? $0.dropFirst(6) : $0 }.map { Data($0) }
            metadata.xmp = chunk("XMP ")
        }
        return metadata
    }
}
