import CJPEG
import Foundation
import WebImageCore

/// Decodes and encodes JPEG with libjpeg-turbo: baseline, progressive, arithmetic, grayscale, CMYK and
/// YCCK; EXIF orientation; ICC profiles; DCT-scaled thumbnail decoding.
///
/// Thumbnails use libjpeg-turbo's DCT scaling (1/2, 1/4, 1/8) to the smallest scale still at least the
/// requested size, then Core's area-average resampler: the main speed lever for thumbnails.
/// A file that ends early ("premature end of JPEG file", which libjpeg only warns about) fails with
/// `.badImageData` unless ``DecodeOptions/allowPartialImage`` asks for the decoded part.
public struct JPEGCoder: ImageCoder {
    public init() {}

    /// Registers a JPEG coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(JPEGCoder()) }

    public var decodableFormats: [ImageFormat] { [.jpeg] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        var decoded = cjpeg_decoded()
        defer {
            cjpeg_free(decoded.pixels)
            cjpeg_free(decoded.exif)
            cjpeg_free(decoded.icc)
        }
        // The DCT scale must leave at least the thumbnail size once orientation swaps the sides.
        var minimum = (width: Int32(0), height: Int32(0))
        if let limit = options.thumbnailPixelSize {
            minimum = (Int32(max(0, limit.width)), Int32(max(0, limit.height)))
        }
        data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            cjpeg_decode(base, raw.count, minimum.width, minimum.height, Int64(options.maxPixelCount), &decoded)
        }
        switch Int32(decoded.code) {
        case Int32(CJPEG_OK): break
        case Int32(CJPEG_TOO_LARGE):
            throw .imageTooLarge(width: Int(decoded.image_width), height: Int(decoded.image_height),
                                 limit: options.maxPixelCount)
        case Int32(CJPEG_OUT_OF_MEMORY): throw .badImageData(reason: "JPEG: out of memory")
        default: throw .badImageData(reason: "JPEG: \(Self.message(decoded))")
        }
        try options.checkDimensions(width: Int(decoded.image_width), height: Int(decoded.image_height))
        if decoded.premature_end != 0 && !options.allowPartialImage {
            throw .badImageData(reason: "JPEG: premature end of data (truncated file)")
        }
        let width = Int(decoded.width), height = Int(decoded.height)
        let layout: PixelLayout = decoded.channels == 1 ? .gray8 : .rgb8
        let count = width * height * layout.bytesPerPixel
        var pixels = PixelBuffer(width: width, height: height, layout: layout,
                                 bytes: Array(UnsafeBufferPointer(start: decoded.pixels, count: count)))
        var metadata = ImageMetadata()
        if decoded.exif != nil { metadata.exif = Data(bytes: decoded.exif, count: decoded.exif_size) }
        if decoded.icc != nil { metadata.iccProfile = Data(bytes: decoded.icc, count: decoded.icc_size) }
        let orientation = metadata.exif.flatMap(ExifOrientation.orientation(fromTIFF:)) ?? .up
        if options.applyOrientation { pixels = pixels.applyingOrientation(orientation) }
        pixels = options.resizedToOutput(pixels)
        var image = Image(pixels: pixels, format: .jpeg, orientation: orientation,
                          isOrientationApplied: options.applyOrientation, scale: options.scale, metadata: metadata)
        image.isIncomplete = decoded.premature_end != 0
        return image
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .jpeg else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.layout == .gray8 ? image.pixels.packed() : image.pixels.converted(to: .rgb8).packed()
        if let limit = options.maxPixelSize {
            let size = ImageResampler.thumbnailSize(width: pixels.width, height: pixels.height, limit: limit,
                                                    preserveAspectRatio: true)
            pixels = ImageResampler.resample(pixels, width: size.width, height: size.height)
        }
        let quality = Int32(max(1, min(100, (options.quality * 100).rounded())))
        let subsampling: Int32 = switch options.chromaSubsampling { case .none: 0; case .half: 1; case .quarter: 2 }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let code = pixels.bytes.withUnsafeBufferPointer { buffer in
            cjpeg_encode(buffer.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(pixels.layout.bytesPerPixel),
                         quality, options.progressive ? 1 : 0, subsampling, &output, &size, &message)
        }
        defer { cjpeg_free(output) }
        guard code == CJPEG_OK, let output else {
            throw .badImageData(reason: "JPEG encode: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return Data(bytes: output, count: size)
    }

    private static func message(_ decoded: cjpeg_decoded) -> String {
        withUnsafeBytes(of: decoded.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
