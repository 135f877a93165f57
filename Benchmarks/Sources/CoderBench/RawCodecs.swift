import CRawCodecs
import Foundation

/// The C libraries called directly, the way a program without SwiftWebImage would.
enum Raw {
    /// Full (or 1/`denominator`-scaled) JPEG decode to RGB with TurboJPEG; returns the pixel count.
    static func jpegDecode(_ data: Data, denominator: Int32 = 1) -> Int {
        let handle = tjInitDecompress()
        defer { tjDestroy(handle) }
        var w: Int32 = 0, h: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        return data.withUnsafeBytes { raw -> Int in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            tjDecompressHeader3(handle, base, UInt(raw.count), &w, &h, &subsampling, &colorspace)
            let sw = (w + denominator - 1) / denominator, sh = (h + denominator - 1) / denominator
            var out = [UInt8](repeating: 0, count: Int(sw * sh * 3))
            tjDecompress2(handle, base, UInt(raw.count), &out, sw, 0, sh, Int32(TJPF_RGB.rawValue), 0)
            return out.count
        }
    }

    static func jpegEncode(_ pixels: [UInt8], width: Int32, height: Int32, quality: Int32) -> Int {
        let handle = tjInitCompress()
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        tjCompress2(
            handle, pixels, width, 0, height, Int32(TJPF_RGB.rawValue), &output, &size, Int32(TJSAMP_420.rawValue),
            quality, 0)
        tjFree(output)
        return Int(size)
    }

    /// libpng's simplified reader into RGB, or RGBA with `alpha`; returns the decoded size.
    static func pngDecode(_ data: Data, alpha: Bool = false) -> Int {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return data.withUnsafeBytes { raw -> Int in
            png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
            image.format = alpha ? 0x03 : 0x02  // RGBA or RGB
            var out = [UInt8](repeating: 0, count: Int(image.width * image.height * (alpha ? 4 : 3)))
            png_image_finish_read(&image, nil, &out, 0, nil)
            png_image_free(&image)
            return out.count
        }
    }

    /// libpng's simplified writer, RGB, default settings; returns the encoded size.
    static func pngEncode(_ pixels: [UInt8], width: Int32, height: Int32) -> Int {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = 0x02  // RGB
        var size = 0
        png_image_write_to_memory(&image, nil, &size, 0, pixels, 0, nil)
        var out = [UInt8](repeating: 0, count: size)
        png_image_write_to_memory(&image, &out, &size, 0, pixels, 0, nil)
        png_image_free(&image)
        return size
    }

    static func webpDecode(_ data: Data) -> Int {
        var w: Int32 = 0, h: Int32 = 0
        let out = data.withUnsafeBytes { WebPDecodeRGB($0.bindMemory(to: UInt8.self).baseAddress, $0.count, &w, &h) }
        WebPFree(out)
        return Int(w * h)
    }

    static func webpEncode(_ pixels: [UInt8], width: Int32, height: Int32, lossless: Bool) -> Int {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let size =
            lossless
            ? WebPEncodeLosslessRGB(pixels, width, height, width * 3, &output)
            : WebPEncodeRGB(pixels, width, height, width * 3, 80, &output)
        WebPFree(output)
        return size
    }

    /// Lossless WebP at libwebp's lossless preset `level`, through its advanced API; returns the size.
    static func webpEncodeLossless(_ pixels: [UInt8], width: Int32, height: Int32, level: Int32) -> Int {
        var config = WebPConfig()
        WebPConfigInit(&config)
        WebPConfigLosslessPreset(&config, level)
        var picture = WebPPicture()
        WebPPictureInit(&picture)
        picture.use_argb = 1
        picture.width = width
        picture.height = height
        WebPPictureImportRGB(&picture, pixels, width * 3)
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        let size = withUnsafeMutablePointer(to: &writer) { pointer -> Int in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            return WebPEncode(&config, &picture) != 0 ? pointer.pointee.size : 0
        }
        WebPMemoryWriterClear(&writer)
        WebPPictureFree(&picture)
        return size
    }

    /// libwebp's own animation decoder (demux + its compositor, one canvas): every frame of `data` in
    /// turn; returns the frame count.
    static func webpAnimationDecode(_ data: Data) -> Int {
        data.withUnsafeBytes { raw -> Int in
            var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            var options = WebPAnimDecoderOptions()
            WebPAnimDecoderOptionsInit(&options)
            options.color_mode = WEBP_CSP_MODE(rawValue: 1)  // MODE_RGBA (the constant is not visible from this module)
            guard let decoder = WebPAnimDecoderNew(&webp, &options) else { return -1 }
            defer { WebPAnimDecoderDelete(decoder) }
            var frames = 0
            var pixels: UnsafeMutablePointer<UInt8>? = nil
            var timestamp: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0, WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0
            {
                frames += 1
            }
            return frames
        }
    }

    /// giflib's DGifSlurp over data in memory: every frame's palette indices, no composition.
    static func gifSlurp(_ data: Data) -> Int {
        final class Cursor { var data: Data; var offset = 0; init(_ data: Data) { self.data = data } }
        let cursor = Cursor(data)
        var error: Int32 = 0
        let reader: InputFunc = { gif, into, length in
            let cursor = Unmanaged<Cursor>.fromOpaque(gif!.pointee.UserData).takeUnretainedValue()
            let n = min(Int(length), cursor.data.count - cursor.offset)
            cursor.data.copyBytes(to: into!, from: cursor.offset..<(cursor.offset + n))
            cursor.offset += n
            return Int32(n)
        }
        return withExtendedLifetime(cursor) {
            guard let gif = DGifOpen(Unmanaged.passUnretained(cursor).toOpaque(), reader, &error) else { return -1 }
            let frames = DGifSlurp(gif) == GIF_OK ? Int(gif.pointee.ImageCount) : -1
            DGifCloseFile(gif, &error)
            return frames
        }
    }
}
