internal import CWebP
import Foundation
import WebImageCore

/// Encodes one still image, lossy or lossless.
enum WebPStillEncoder {
    static func encode(_ source: PixelBuffer, options: EncodeOptions) throws(ImageError) -> Data {
        var pixels = source.layout == .gray8 ? source.converted(to: .rgb8) : source.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        return try encodeWithConfig(pixels, options: options)
    }

    /// Through libwebp's advanced API, so the options pick the effort: `EncodeOptions/compressionLevel`
    /// for lossless (libwebp's lossless presets, 0 fastest to 9 smallest), `EncodeOptions/lossyEffort`
    /// for lossy (libwebp's `method`).
    private static func encodeWithConfig(_ pixels: PixelBuffer, options: EncodeOptions) throws(ImageError) -> Data {
        var config = try WebPEncoderSettings.config(for: options)
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
        // Lossless codes ARGB; lossy imports straight to YUV, as libwebp's one-call API does.
        picture.use_argb = options.lossless ? 1 : 0
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        defer { WebPPictureFree(&picture) }
        let imported = pixels.bytes.withUnsafeBufferPointer { p in
            pixels.layout == .rgba8
                ? WebPPictureImportRGBA(&picture, p.baseAddress, Int32(pixels.bytesPerRow))
                : WebPPictureImportRGB(&picture, p.baseAddress, Int32(pixels.bytesPerRow))
        }
        guard imported != 0 else { throw .badImageData(reason: "WebP: out of memory importing the picture") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        // The writer is reached through `custom_ptr` only during WebPEncode, inside this scope.
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let bytes = writer.mem else {
            throw .badImageData(reason: "WebP: encoding failed: \(WebPStatus.words(picture.error_code))")
        }
        return Data(bytes: bytes, count: writer.size)
    }
}

/// The libwebp encoder settings for `EncodeOptions`: lossy quality and effort, or lossless effort.
enum WebPEncoderSettings {
    static func config(for options: EncodeOptions) throws(ImageError) -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
        if options.lossless {
            guard WebPConfigLosslessPreset(&config, Int32(max(0, min(9, options.compressionLevel)))) != 0 else {
                throw .badImageData(reason: "WebP: bad lossless preset")
            }
        } else {
            config.quality = Float(max(0, min(1, options.quality)) * 100)
            if let effort = options.lossyEffort { config.method = Int32(max(0, min(6, effort))) }
        }
        return config
    }
}

/// Encodes an animation with libwebp's animation encoder, keeping frame durations and the loop count.
///
/// Frames stream from the animation's lazy source (`AnimatedFrames/forEachFrame(_:)`): each is handed
/// to libwebp as soon as it is composed and then dropped. libwebp keeps the frames it has encoded, not
/// their canvases, so memory is a few canvases plus the output, whatever the frame count. A damaged
/// frame ends the animation where the decode ends it; budget, time and cancellation errors are thrown.
enum WebPAnimationEncoder {
    static func encode(_ image: Image, options: EncodeOptions) throws(ImageError) -> Data {
        guard let animation = image.animation else {
            return try WebPStillEncoder.encode(image.pixels, options: options)
        }
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw .badImageData(reason: "WebP: version mismatch")
        }
        encoderOptions.anim_params.loop_count = Int32(animation.loopCount)
        let canvas = PixelSize(width: image.width, height: image.height)
        guard let encoder = WebPAnimEncoderNew(Int32(canvas.width), Int32(canvas.height), &encoderOptions) else {
            throw .badImageData(reason: "WebP: cannot create the animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = try WebPEncoderSettings.config(for: options)
        var timestamp: Int32 = 0
        var index = 0
        try animation.forEachFrame { (frame) throws(ImageError) in
            try add(frame, index: index, canvas: canvas, timestamp: timestamp, config: &config, to: encoder)
            timestamp += Int32((frame.duration / .milliseconds(1)).rounded())
            index += 1
        }
        guard WebPAnimEncoderAdd(encoder, nil, timestamp, nil) != 0 else {
            throw .badImageData(reason: "WebP: finishing failed")
        }
        var webp = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &webp) != 0 else {
            throw .badImageData(reason: "WebP: assembling failed")
        }
        defer { WebPDataClear(&webp) }
        return Data(bytes: webp.bytes, count: webp.size)
    }

    /// Encodes one frame into `encoder`; libwebp copies what it needs before returning.
    private static func add(
        _ frame: ImageFrame, index: Int, canvas: PixelSize, timestamp: Int32,
        config: inout WebPConfig, to encoder: OpaquePointer
    ) throws(ImageError) {
        let rgba = frame.pixels.converted(to: .rgba8).packed()
        guard rgba.width == canvas.width, rgba.height == canvas.height else {
            throw .badImageData(reason: "WebP: every frame must have the canvas size")
        }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
        picture.use_argb = 1
        picture.width = Int32(canvas.width)
        picture.height = Int32(canvas.height)
        let imported = rgba.bytes.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(rgba.bytesPerRow))
        }
        defer { WebPPictureFree(&picture) }
        guard imported != 0 else { throw .badImageData(reason: "WebP: frame \(index): out of memory importing it") }
        guard WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else {
            // libwebp's animation encoder says why in words.
            let why =
                WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? WebPStatus.words(picture.error_code)
            throw .badImageData(reason: "WebP: adding frame \(index) failed: \(why)")
        }
    }
}
