internal import CAVIF
import WebImageCore

/// Turns a decoded libavif image (YUV at 8, 10 or 12 bits) into our 8-bit RGB(A) pixels.
enum AVIFPixels {
    /// `image` as `layout` pixels: libavif's YUV to RGB conversion with its depth rescaling (10 and
    /// 12 bits round to nearest, as avifdec writes 8-bit PNGs) and straight alpha (a premultiplied
    /// file is divided back), then cropped to the clean aperture (`clap`) when the file has one.
    static func rgb(of image: UnsafeMutablePointer<avifImage>, layout: PixelLayout) throws(ImageError) -> PixelBuffer {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = layout == .rgba8 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.alphaPremultiplied = AVIF_FALSE
        let width = Int(image.pointee.width)
        let height = Int(image.pointee.height)
        let rowBytes = width * layout.bytesPerPixel
        rgb.rowBytes = UInt32(rowBytes)
        var result = AVIF_RESULT_OK
        // libavif writes every byte of the buffer it is given (all rows, all channels), so it need not be zeroed.
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            rgb.pixels = buffer.baseAddress
            result = avifImageYUVToRGB(image, &rgb)
            count = result == AVIF_RESULT_OK ? buffer.count : 0
        }
        guard result == AVIF_RESULT_OK else { throw AVIFStatus.error(result, "converting to RGB") }
        let pixels = PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
        return croppedToCleanAperture(pixels, image: image)
    }

    /// `pixels` cut to `image`'s `clap` rectangle; unchanged without one or when libavif finds it invalid.
    private static func croppedToCleanAperture(
        _ pixels: PixelBuffer, image: UnsafeMutablePointer<avifImage>
    ) -> PixelBuffer {
        guard image.pointee.transformFlags & UInt32(AVIF_TRANSFORM_CLAP.rawValue) != 0 else { return pixels }
        var rect = avifCropRect()
        var diag = avifDiagnostics()
        guard
            avifCropRectConvertCleanApertureBox(
                &rect, &image.pointee.clap, image.pointee.width, image.pointee.height,
                image.pointee.yuvFormat, &diag) != 0,
            rect.width > 0, rect.height > 0
        else { return pixels }
        return pixels.cropped(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
    }
}
