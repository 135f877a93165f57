internal import CHEIF
import WebImageCore

/// Decodes an image handle (primary or thumbnail) to 8-bit RGB(A) with libheif: grid tiles assembled,
/// the alpha auxiliary image attached, the transformations (`clap`, `irot`, `imir`) applied, and
/// 10-bit HEVC converted to 8 bits.
enum HEIFPixels {
    static func decode(_ handle: OpaquePointer, watch: DecodeWatch) throws(ImageError) -> PixelBuffer {
        try watch.check()
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let layout: PixelLayout = hasAlpha ? .rgba8 : .rgb8
        guard let options = heif_decoding_options_alloc() else { throw .badImageData(reason: "HEIF: out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        let decoded = heif_decode_image(
            handle, &image, heif_colorspace_RGB,
            hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
        defer { if let image { heif_image_release(image) } }
        try HEIFStatus.check(decoded, "decoding")
        guard let image else { throw .badImageData(reason: "HEIF: decoding gave no image") }
        try watch.check()
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)
        else {
            throw .badImageData(reason: "HEIF: decoded image has no pixels")
        }
        let rowBytes = width * layout.bytesPerPixel
        let source = Int(stride)
        // Copies the rows out of libheif's plane (padded to `stride`), which `image` owns until released.
        var bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            for row in 0..<height {
                (buffer.baseAddress! + row * rowBytes).update(from: plane + row * source, count: rowBytes)
            }
            count = rowBytes * height
        }
        if hasAlpha, heif_image_is_premultiplied_alpha(image) != 0 { unpremultiply(&bytes) }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
    }

    /// Straight alpha from premultiplied RGBA, rounding to nearest (alpha 0 leaves black).
    static func unpremultiply(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { p in
            for o in stride(from: 0, to: p.count, by: 4) {
                let a = Int(p[o + 3])
                guard a != 0, a != 255 else { continue }
                for c in 0..<3 { p[o + c] = UInt8(min(255, (Int(p[o + c]) * 255 + a / 2) / a)) }
            }
        }
    }
}
