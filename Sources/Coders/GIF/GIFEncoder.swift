internal import CGIF
import Foundation
import WebImageCore

/// Writes single and animated GIFs. Each frame gets its own palette: its exact colors when it has at
/// most 255, else giflib's median-cut quantizer's; pixels with alpha under 128 map to a reserved
/// transparent index.
///
/// Animations stream: frames come one at a time from `AnimatedFrames/forEachFrame(_:)` and are
/// written as they come, so encoding holds the frame being written, its palette indices and the output,
/// never all frames. An animation whose later frame is damaged is written up to the frame before it,
/// as it plays.
enum GIFEncoder {
    /// Colors giflib's quantizer may use per frame; index 255 is kept for transparency.
    private static let quantizedColors = 128
    /// The palette index written for pixels with alpha under 128.
    private static let transparentIndex = 255

    static func encode(_ image: Image, options: EncodeOptions) throws(ImageError) -> Data {
        var buffer = cgif_buffer()
        var error: Int32 = 0
        guard let gif = cgif_open_writer(&buffer, &error) else {
            throw .badImageData(reason: "GIF: cannot open encoder")
        }
        defer { cgif_buffer_free(&buffer) }
        let animation = options.firstFrameOnly ? nil : image.animation
        let result = Result { () throws(ImageError) in
            try writeHeader(gif, width: image.width, height: image.height, loopCount: animation?.loopCount)
            guard let animation else {
                return try writeFrame(
                    gif, ImageFrame(pixels: image.pixels, duration: .zero),
                    width: image.width, height: image.height)
            }
            try animation.forEachFrame { (frame) throws(ImageError) in
                try writeFrame(gif, frame, width: image.width, height: image.height)
            }
        }
        var closeError: Int32 = 0
        let closed = EGifCloseFile(gif, &closeError) == GIF_OK
        try result.get()
        guard closed, buffer.failed == 0, let bytes = buffer.bytes else {
            throw .badImageData(reason: "GIF: writing failed")
        }
        return Data(bytes: bytes, count: buffer.size)
    }

    private static func writeHeader(
        _ gif: UnsafeMutablePointer<GifFileType>, width: Int, height: Int,
        loopCount: Int?
    ) throws(ImageError) {
        EGifSetGifVersion(gif, true)
        guard EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil) == GIF_OK else {
            throw .badImageData(reason: "GIF: bad screen size")
        }
        if let loopCount {
            var name = Array("NETSCAPE2.0".utf8)
            var loop: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8 & 0xFF)]
            EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE)
            EGifPutExtensionBlock(gif, 11, &name)
            EGifPutExtensionBlock(gif, 3, &loop)
            EGifPutExtensionTrailer(gif)
        }
    }

    /// Writes one full-canvas frame: palette, graphic control extension, image descriptor, pixels.
    private static func writeFrame(
        _ gif: UnsafeMutablePointer<GifFileType>, _ frame: ImageFrame,
        width: Int, height: Int
    ) throws(ImageError) {
        let rgba = frame.pixels.converted(to: .rgba8).packed()
        guard rgba.width == width, rgba.height == height else {
            throw .badImageData(reason: "GIF: every frame must have the canvas size")
        }
        let pixelCount = width * height
        var r = [UInt8](repeating: 0, count: pixelCount), g = r, b = r
        var transparent = false
        for i in 0..<pixelCount {
            r[i] = rgba.bytes[i * 4]; g[i] = rgba.bytes[i * 4 + 1]; b[i] = rgba.bytes[i * 4 + 2]
            if rgba.bytes[i * 4 + 3] < 128 { transparent = true }
        }
        var colors = [GifColorType](repeating: GifColorType(), count: 256)
        var indices = [UInt8](repeating: 0, count: pixelCount)
        if !exactPalette(r, g, b, colors: &colors, indices: &indices) {
            // More than 255 colors: giflib's median-cut quantizer picks the palette.
            var mapSize = Int32(quantizedColors)
            guard GifQuantizeBuffer(UInt32(width), UInt32(height), &mapSize, &r, &g, &b, &indices, &colors) == GIF_OK
            else {
                throw .badImageData(reason: "GIF: quantization failed")
            }
        }
        if transparent {
            for i in 0..<pixelCount where rgba.bytes[i * 4 + 3] < 128 { indices[i] = UInt8(transparentIndex) }
        }
        var control = GraphicsControlBlock(
            DisposalMode: transparent ? 2 : 0, UserInputFlag: false,
            DelayTime: Int32((frame.duration / .milliseconds(10)).rounded()),
            TransparentColor: transparent ? Int32(transparentIndex) : -1)
        var extensionBytes = [UInt8](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&control, &extensionBytes)
        EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes)
        guard let map = GifMakeMapObject(256, &colors) else { throw .badImageData(reason: "GIF: out of memory") }
        defer { GifFreeMapObject(map) }
        guard EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, map) == GIF_OK else {
            throw .badImageData(reason: "GIF: writing a frame failed")
        }
        let written = indices.withUnsafeMutableBufferPointer { p in
            (0..<height).allSatisfy { y in EGifPutLine(gif, p.baseAddress! + y * width, Int32(width)) == GIF_OK }
        }
        guard written else { throw .badImageData(reason: "GIF: writing pixels failed") }
    }

    /// Fills `colors` and `indices` with the frame's own colors; false when there are more than 255.
    private static func exactPalette(
        _ r: [UInt8], _ g: [UInt8], _ b: [UInt8], colors: inout [GifColorType],
        indices: inout [UInt8]
    ) -> Bool {
        var indexOf: [UInt32: UInt8] = [:]
        for i in 0..<r.count {
            let key = UInt32(r[i]) << 16 | UInt32(g[i]) << 8 | UInt32(b[i])
            if let index = indexOf[key] {
                indices[i] = index
                continue
            }
            guard indexOf.count < 255 else { return false }
            let index = UInt8(indexOf.count)
            indexOf[key] = index
            colors[Int(index)] = GifColorType(Red: r[i], Green: g[i], Blue: b[i])
            indices[i] = index
        }
        return true
    }
}
