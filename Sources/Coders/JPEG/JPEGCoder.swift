internal import CJPEG
import Foundation
import WebImageCore

/// Decodes and encodes JPEG with libjpeg-turbo: baseline, progressive, arithmetic, grayscale, CMYK and
/// YCCK; EXIF orientation; ICC profiles; DCT-scaled thumbnail decoding.
///
/// Thumbnails use libjpeg-turbo's DCT scaling (1/2, 1/4, 1/8) to the smallest scale still at least twice
/// the output size (`ImageResampler/thumbnailReducingGap`), then Core's Lanczos3 resampler to exactly
/// that size, as libvips does: the main speed lever for thumbnails, without the softness of stopping at
/// the DCT's block average. The output size is `DecodeOptions/outputSize(width:height:)` of the real, upright image
/// (not of the rounded-up scaled size), so every coder gives the same thumbnail size for the same image.
/// At 1/8 a progressive file's AC scans for luma (and for every component of a 4:4:4 or gray file) are passed
/// over without Huffman decoding: their 1x1 IDCT reads only the DC coefficient, so the pixels are the
/// same. The coefficient buffer libjpeg keeps for a progressive file is held sparse at that scale (the
/// nonzero coefficients of each block), so such thumbnails are small in memory as well as fast.
///
/// CMYK and YCCK files are read with Adobe's inverted convention whether or not they carry its APP14
/// marker, as every reference decoder does.
///
/// Budgets for untrusted input: progressive files with more than `DecodeOptions/maxProgressiveScanCount`
/// scans, or whose scans and output passes add up past `DecodeOptions/maxTotalPixelCount`, stop with
/// `.decodeBudgetExceeded`; the time limit and cancellation are checked from inside libjpeg (its progress
/// monitor, and per iMCU row and scan), for each decode call and each incremental step.
///
/// A file that ends early ("premature end of JPEG file", which libjpeg only warns about) fails with
/// `.badImageData` unless `DecodeOptions/allowPartialImage` asks for the decoded part.
public struct JPEGCoder: ImageCoder {
    /// A JPEG coder.
    public init() {}

    /// Registers a JPEG coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(JPEGCoder()) }

    public var decodableFormats: [ImageFormat] { [.jpeg] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let decompressor = try JPEGDecompressor(options: options)
        return try decompressor.completeImage(try decompressor.decode(data))
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .jpeg else { throw .unsupportedFormat(format) }
        var pixels = image.pixels.layout == .gray8 ? image.pixels.packed() : image.pixels.converted(to: .rgb8).packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        let quality = Int32(max(1, min(100, (options.quality * 100).rounded())))
        let subsampling: Int32 =
            switch options.chromaSubsampling {
            case .none: 0;
            case .half: 1;
            case .quarter: 2
            }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let icc = options.colorProfile(for: image) ?? Data()
        let code = pixels.bytes.withUnsafeBufferPointer { buffer in
            icc.withUnsafeBytes { profile in
                cjpeg_encode_icc(
                    buffer.baseAddress, Int32(pixels.width), Int32(pixels.height),
                    Int32(pixels.layout.bytesPerPixel), quality, options.progressive ? 1 : 0, subsampling,
                    profile.bindMemory(to: UInt8.self).baseAddress, profile.count, &output, &size, &message)
            }
        }
        guard code == CJPEG_OK, let output else {
            cjpeg_free(output)
            throw .badImageData(
                reason:
                    "JPEG encode: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
            )
        }
        // The Data adopts the malloc'd buffer: no copy of the file.
        return Data(bytesNoCopy: output, count: size, deallocator: .free)
    }
}
