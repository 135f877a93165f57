import CWebP
import Foundation
import WebImageCore

extension WebPCoder: ProgressiveImageCoder {
    public func canDecodeIncrementally(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        WebPIncrementalDecoder(options: options)
    }
}

/// Decodes a still WebP while it downloads with libwebp's incremental decoder, showing the rows decoded
/// so far. With a thumbnail size, libwebp scales while it decodes (as a whole-file decode does), so the
/// full image is never held and the result equals ``WebPCoder/decode(_:options:)``. Animated WebPs are
/// buffered and decoded when complete.
final class WebPIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    /// Bytes held until the header can be read (and all bytes of an animation).
    private var pending = Data()
    /// Every byte received, kept for the metadata chunks (ICC, EXIF, XMP), which may follow the pixels.
    private var received = Data()
    private var decoder: OpaquePointer?
    private var layout: PixelLayout = .rgb8
    private var isAnimated = false
    private var status = VP8_STATUS_NOT_ENOUGH_DATA
    /// The settings `decoder` was made with. libwebp keeps a pointer to them (and writes its output buffer
    /// into them) for the decoder's whole life, so they live on the heap, allocated and freed here only.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>

    init(options: DecodeOptions) {
        self.options = options
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        _ = WebPInitDecoderConfig(config)
    }

    deinit {
        if let decoder { WebPIDelete(decoder) }
        WebPFreeDecBuffer(&config.pointee.output)
        config.deinitialize(count: 1)
        config.deallocate()
    }

    func append(_ bytes: Data) throws(ImageError) {
        received.append(bytes)
        if let decoder {
            try feed(decoder, bytes)
            return
        }
        pending.append(bytes)
        var features = WebPBitstreamFeatures()
        let header = pending.withUnsafeBytes { WebPGetFeatures($0.bindMemory(to: UInt8.self).baseAddress, $0.count, &features) }
        if header == VP8_STATUS_NOT_ENOUGH_DATA { return }
        guard header == VP8_STATUS_OK else { throw .badImageData(reason: "WebP: bad header (status \(header.rawValue))") }
        try options.checkDimensions(width: Int(features.width), height: Int(features.height))
        if features.has_animation != 0 {
            isAnimated = true
            return
        }
        layout = features.has_alpha != 0 ? .rgba8 : .rgb8
        config.pointee.output.colorspace = layout == .rgba8 ? MODE_RGBA : MODE_RGB
        let size = options.outputSize(width: Int(features.width), height: Int(features.height))
        if size.width != Int(features.width) || size.height != Int(features.height) {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(size.width)
            config.pointee.options.scaled_height = Int32(size.height)
        }
        guard let created = WebPIDecode(nil, 0, config) else {
            throw .badImageData(reason: "WebP: cannot create the incremental decoder")
        }
        decoder = created
        let buffered = pending
        pending = Data()
        try feed(created, buffered)
    }

    private func feed(_ decoder: OpaquePointer, _ bytes: Data) throws(ImageError) {
        guard status != VP8_STATUS_OK, !bytes.isEmpty else { return }
        status = bytes.withUnsafeBytes { WebPIAppend(decoder, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
        if status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED {
            throw .badImageData(reason: "WebP: decoding failed (status \(status.rawValue))")
        }
    }

    func partialImage() -> Image? {
        guard let decoder, let rows = currentRows(decoder), rows.decodedRows > 0 else { return nil }
        var image = Image(pixels: rows.pixels, format: .webp, scale: options.scale)
        image.isIncomplete = rows.decodedRows < rows.pixels.height
        return image
    }

    func finish() throws(ImageError) -> Image {
        if decoder == nil || isAnimated { return try WebPCoder().decode(pending, options: options) }
        guard let decoder, let rows = currentRows(decoder) else { throw .badImageData(reason: "WebP: no image data") }
        if status != VP8_STATUS_OK && !options.allowPartialImage {
            throw .badImageData(reason: "WebP: the data ended before the image (truncated file)")
        }
        let metadata = status == VP8_STATUS_OK ? WebPChunks.metadata(of: received) : ImageMetadata()
        var image = WebPCoder.still(rows.pixels, metadata: metadata, options: options)
        image.isIncomplete = status != VP8_STATUS_OK
        return image
    }

    /// The decoder's output so far: rows below `decodedRows` are still zero.
    private func currentRows(_ decoder: OpaquePointer) -> (pixels: PixelBuffer, decodedRows: Int)? {
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let base = WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride), width > 0, height > 0 else { return nil }
        let rowBytes = Int(width) * layout.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: rowBytes * Int(height))
        for y in 0..<Int(lastRow) {
            bytes.withUnsafeMutableBytes { out in
                (out.baseAddress! + y * rowBytes).copyMemory(from: base + y * Int(stride), byteCount: rowBytes)
            }
        }
        return (PixelBuffer(width: Int(width), height: Int(height), layout: layout, bytes: bytes), Int(lastRow))
    }
}
