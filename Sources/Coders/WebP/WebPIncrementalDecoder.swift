internal import CWebP
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
/// full image is never held and the result equals ``WebPCoder/decode(_:options:)``; where libwebp's
/// scaler is wrong (`WebPScaling`) it decodes at full size and Core resamples at the end, as a whole
/// decode does. Lossless data is held back until its Huffman table memory is known to fit
/// (``WebPTableMemoryCheck``). Each append checks its watch between chunks given to libwebp. Animated
/// WebPs are buffered and decoded when complete.
final class WebPIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    /// Bytes held until the header can be read (and all bytes of an animation).
    private var pending = Data()
    /// Every byte received, kept for the metadata chunks (ICC, EXIF, XMP), which may follow the pixels.
    private var received = Data()
    private var decoder: OpaquePointer?
    private var layout: PixelLayout = .rgb8
    /// When libwebp scales: the output size its (about twice larger) rows are resampled to at the end.
    private var scaledOutputSize: PixelSize?
    private var isAnimated = false
    private var status = VP8_STATUS_NOT_ENOUGH_DATA
    /// How many held bytes the last Huffman table memory check read.
    private var checkedByteCount = 0
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
        // Each append is one unit of work with its own watch, checked between chunks given to libwebp.
        let watch = options.startWatch()
        try watch.check()
        received.append(bytes)
        if let decoder {
            try feed(decoder, bytes, watch: watch)
            return
        }
        pending.append(bytes)
        if isAnimated { return }
        var features = WebPBitstreamFeatures()
        let header = pending.withUnsafeBytes {
            WebPGetFeatures($0.bindMemory(to: UInt8.self).baseAddress, $0.count, &features)
        }
        if header == VP8_STATUS_NOT_ENOUGH_DATA { return }
        guard header == VP8_STATUS_OK else { throw WebPStatus.error(header, "bad header") }
        try options.checkDimensions(width: Int(features.width), height: Int(features.height))
        if features.has_animation != 0 {
            isAnimated = true
            return
        }
        guard try tableMemoryIsKnownToFit(features) else { return }
        layout = features.has_alpha != 0 ? .rgba8 : .rgb8
        config.pointee.output.colorspace = layout == .rgba8 ? MODE_RGBA : MODE_RGB
        let source = PixelSize(width: Int(features.width), height: Int(features.height))
        let size = options.outputSize(width: source.width, height: source.height)
        if WebPScaling.libwebpScalesCorrectly(features, from: source, to: size) && size != source {
            let decodeSize = WebPScaling.shrinkOnLoadSize(from: source, to: size, gap: options.thumbnailReducingGap)
            if decodeSize != source {
                config.pointee.options.use_scaling = 1
                config.pointee.options.scaled_width = Int32(decodeSize.width)
                config.pointee.options.scaled_height = Int32(decodeSize.height)
            }
            scaledOutputSize = size
        }
        guard let created = WebPIDecode(nil, 0, config) else {
            throw .badImageData(reason: "WebP: cannot create the incremental decoder")
        }
        decoder = created
        let buffered = pending
        pending = Data()
        try feed(created, buffered, watch: watch)
    }

    /// Whether libwebp's Huffman tables for the bytes so far are known to fit their bound
    /// (``WebPTableMemoryCheck``); bytes are held back from libwebp until they are. The check reads
    /// from the start, so it runs again only once the held bytes have doubled (linear work in all).
    private func tableMemoryIsKnownToFit(_ features: WebPBitstreamFeatures) throws(ImageError) -> Bool {
        guard pending.count >= 2 * checkedByteCount else { return false }
        checkedByteCount = pending.count
        let outcome: Result<WebPTableMemoryCheck.Outcome, ImageError> = pending.withUnsafeBytes { raw in
            do throws(ImageError) {
                return .success(
                    try WebPTableMemoryCheck.check(raw, width: Int(features.width), height: Int(features.height)))
            } catch { return .failure(error) }
        }
        return try outcome.get() == .allowed
    }

    private func feed(_ decoder: OpaquePointer, _ bytes: Data, watch: DecodeWatch) throws(ImageError) {
        var offset = 0
        while status != VP8_STATUS_OK && offset < bytes.count {
            let end = min(bytes.count, offset + WebPStillDecoder.chunkSize)
            status = bytes[bytes.startIndex + offset..<bytes.startIndex + end].withUnsafeBytes {
                WebPIAppend(decoder, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
            }
            if status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED {
                throw WebPStatus.error(status, "decoding failed")
            }
            offset = end
            if offset < bytes.count { try watch.check() }
        }
    }

    func partialImage() -> Image? {
        guard let decoder, let rows = currentRows(decoder), rows.decodedRows > 0 else { return nil }
        var pixels = rows.pixels
        // Shown at the size the finished image will have (libwebp's rows are about twice that).
        if let size = scaledOutputSize {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var image = Image(pixels: pixels, format: .webp, scale: options.scale)
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
        var pixels = rows.pixels
        if let size = scaledOutputSize {
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var image = WebPCoder.still(pixels, metadata: metadata, options: options)
        image.isIncomplete = status != VP8_STATUS_OK
        return image
    }

    /// The decoder's output so far: rows below `decodedRows` are still zero.
    private func currentRows(_ decoder: OpaquePointer) -> (pixels: PixelBuffer, decodedRows: Int)? {
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let base = WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride), width > 0, height > 0 else {
            return nil
        }
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
