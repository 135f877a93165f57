internal import CAVIF
import Foundation
import WebImageCore

/// Encodes stills and image sequences with libavif (its default AV1 encoder, aom on Debian 12).
///
/// Lossy: 8-bit YUV with the requested chroma subsampling (BT.601 matrix, sRGB code points, full range,
/// as avifenc writes from PNG), the quality mapped to one AV1 quantizer for colour and alpha. Lossless:
/// 4:4:4 with the identity matrix (the RGB values themselves) and quantizer 0, so pixels come back
/// exactly. Animations stream frame by frame from the image's lazy frames (`Image/forEachFrame(_:)`):
/// libavif keeps the encoded frames, not the canvases.
struct AVIFEncoder {
    let options: EncodeOptions
    /// libavif's speed, 0 to 10.
    let speed: Int

    /// Timescale of sequences: milliseconds, the resolution frame durations have.
    static let timescale: UInt64 = 1000

    /// libavif's AV1 quantizer for a 0...1 quality: 63 (worst) at 0 to 0 (lossless) at 1, linearly, the
    /// mapping avifenc's later `--quality` option uses.
    static func quantizer(quality: Double) -> Int32 {
        let q = max(0, min(1, quality))
        return Int32(((1 - q) * Double(AVIF_QUANTIZER_WORST_QUALITY)).rounded())
    }

    func encodeStill(_ source: PixelBuffer) throws(ImageError) -> Data {
        let pixels = prepared(source)
        let encoder = try makeEncoder()
        defer { avifEncoderDestroy(encoder) }
        try add(
            pixels, to: encoder, duration: 1, flags: avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue), index: 0)
        return try finish(encoder)
    }

    func encodeAnimation(_ image: Image) throws(ImageError) -> Data {
        let encoder = try makeEncoder()
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.timescale = Self.timescale
        let layout: PixelLayout = image.pixels.layout == .rgba8 ? .rgba8 : .rgb8
        var index = 0
        try image.forEachFrame { (frame) throws(ImageError) in
            let pixels = prepared(frame.pixels.converted(to: layout))
            let milliseconds = UInt64(max(1, (frame.duration / .seconds(1) * Double(Self.timescale)).rounded()))
            try add(pixels, to: encoder, duration: milliseconds, flags: 0, index: index)
            index += 1
        }
        return try finish(encoder)
    }

    /// `source` packed, gray made RGB, and shrunk to `EncodeOptions/maxPixelSize` when set.
    private func prepared(_ source: PixelBuffer) -> PixelBuffer {
        var pixels = source.layout == .gray8 ? source.converted(to: .rgb8) : source.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        return pixels
    }

    private func makeEncoder() throws(ImageError) -> UnsafeMutablePointer<avifEncoder> {
        guard let encoder = avifEncoderCreate() else { throw .badImageData(reason: "AVIF: out of memory") }
        encoder.pointee.maxThreads = Int32(max(1, ProcessInfo.processInfo.activeProcessorCount))
        encoder.pointee.speed = Int32(speed)
        let quantizer = options.lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Self.quantizer(quality: options.quality)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        return encoder
    }

    /// The YUV format lossy pixels are stored in.
    private var yuvFormat: avifPixelFormat {
        if options.lossless { return AVIF_PIXEL_FORMAT_YUV444 }
        switch options.chromaSubsampling {
        case .none: return AVIF_PIXEL_FORMAT_YUV444
        case .half: return AVIF_PIXEL_FORMAT_YUV422
        case .quarter: return AVIF_PIXEL_FORMAT_YUV420
        }
    }

    /// Converts `pixels` to YUV and hands them to the encoder, which copies what it keeps.
    private func add(
        _ pixels: PixelBuffer, to encoder: UnsafeMutablePointer<avifEncoder>, duration: UInt64,
        flags: avifAddImageFlags, index: Int
    ) throws(ImageError) {
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), 8, yuvFormat) else {
            throw .badImageData(reason: "AVIF: out of memory")
        }
        defer { avifImageDestroy(image) }
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients =
            options.lossless
            ? avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
            : avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        if let profile = options.iccProfile, !profile.isEmpty {
            profile.withUnsafeBytes { raw in
                avifImageSetProfileICC(image, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            }
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = pixels.layout == .rgba8 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.rowBytes = UInt32(pixels.bytesPerRow)
        // libavif reads `rgb.pixels` only inside avifImageRGBToYUV, which allocates the image's planes.
        var bytes = pixels.bytes
        let converted = bytes.withUnsafeMutableBufferPointer { buffer in
            rgb.pixels = buffer.baseAddress
            return avifImageRGBToYUV(image, &rgb)
        }
        guard converted == AVIF_RESULT_OK else { throw AVIFStatus.error(converted, "converting frame \(index) to YUV") }
        let added = avifEncoderAddImage(encoder, image, duration, flags)
        guard added == AVIF_RESULT_OK else {
            throw AVIFStatus.error(
                added, "encoding frame \(index)", diagnostics: AVIFStatus.text(of: &encoder.pointee.diag))
        }
    }

    private func finish(_ encoder: UnsafeMutablePointer<avifEncoder>) throws(ImageError) -> Data {
        var output = avifRWData()
        let result = avifEncoderFinish(encoder, &output)
        defer { avifRWDataFree(&output) }
        guard result == AVIF_RESULT_OK else {
            throw AVIFStatus.error(result, "finishing", diagnostics: AVIFStatus.text(of: &encoder.pointee.diag))
        }
        return Data(bytes: output.data, count: output.size)
    }
}
