import CWebP
import Foundation
import WebImageCore

/// Encodes one still image, lossy or lossless.
enum WebPStillEncoder {
    static func encode(_ source: PixelBuffer, options: EncodeOptions) throws(ImageError) -> Data {
        var pixels = source.layout == .gray8 ? source.converted(to: .rgb8) : source.packed()
        if let limit = options.maxPixelSize {
            let size = ImageResampler.thumbnailSize(width: pixels.width, height: pixels.height, limit: limit,
                                                    preserveAspectRatio: true)
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        let quality = Float(max(0, min(1, options.quality)) * 100)
        let size = pixels.bytes.withUnsafeBufferPointer { p -> Int in
            let w = Int32(pixels.width), h = Int32(pixels.height), stride = Int32(pixels.bytesPerRow)
            switch (pixels.layout, options.lossless) {
            case (.rgba8, true): return WebPEncodeLosslessRGBA(p.baseAddress, w, h, stride, &output)
            case (.rgba8, false): return WebPEncodeRGBA(p.baseAddress, w, h, stride, quality, &output)
            case (_, true): return WebPEncodeLosslessRGB(p.baseAddress, w, h, stride, &output)
            case (_, false): return WebPEncodeRGB(p.baseAddress, w, h, stride, quality, &output)
            }
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw .badImageData(reason: "WebP encode failed") }
        return Data(bytes: output, count: size)
    }
}

/// Encodes an animation with libwebp's animation encoder, keeping frame durations and the loop count.
enum WebPAnimationEncoder {
    static func encode(_ image: Image, options: EncodeOptions) throws(ImageError) -> Data {
        guard let animation = image.animation else { return try WebPStillEncoder.encode(image.pixels, options: options) }
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
        encoderOptions.anim_params.loop_count = Int32(animation.loopCount)
        let width = Int32(image.width), height = Int32(image.height)
        guard let encoder = WebPAnimEncoderNew(width, height, &encoderOptions) else {
            throw .badImageData(reason: "WebP: cannot create the animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
        config.lossless = options.lossless ? 1 : 0
        config.quality = Float(max(0, min(1, options.quality)) * 100)
        var timestamp: Int32 = 0
        for index in 0..<animation.frameCount {
            let frame: ImageFrame
            do { frame = try animation.frame(at: index) } catch { throw .badImageData(reason: "\(error)") }
            let rgba = frame.pixels.converted(to: .rgba8).packed()
            guard rgba.width == image.width, rgba.height == image.height else {
                throw .badImageData(reason: "WebP: every frame must have the canvas size")
            }
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw .badImageData(reason: "WebP: version mismatch") }
            picture.use_argb = 1
            picture.width = width
            picture.height = height
            let imported = rgba.bytes.withUnsafeBufferPointer { WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(rgba.bytesPerRow)) }
            defer { WebPPictureFree(&picture) }
            guard imported != 0, WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else {
                throw .badImageData(reason: "WebP: adding frame \(index) failed")
            }
            timestamp += Int32((frame.duration * 1000).rounded())
        }
        guard WebPAnimEncoderAdd(encoder, nil, timestamp, nil) != 0 else { throw .badImageData(reason: "WebP: finishing failed") }
        var webp = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &webp) != 0 else { throw .badImageData(reason: "WebP: assembling failed") }
        defer { WebPDataClear(&webp) }
        return Data(bytes: webp.bytes, count: webp.size)
    }
}
