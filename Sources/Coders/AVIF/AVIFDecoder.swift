import CAVIF
import Foundation
import WebImageCore

/// One parsed AVIF: a copy of the file's bytes and the libavif decoder reading them, with libavif's own
/// limits set from the decode budget. Not thread-safe; ``AVIFFrameSource`` keeps it behind a lock.
final class AVIFDecoder {
    /// Owned copy of the file: libavif reads it in place (`avifDecoderSetIOMemory` does not copy) for
    /// as long as the decoder lives, so both are freed together in `deinit`.
    private let bytes: UnsafeMutableRawBufferPointer
    /// Owned by this object; destroyed in `deinit`.
    private let decoder: UnsafeMutablePointer<avifDecoder>

    /// Threads libavif may give the AV1 decoder: the machine's cores, the speed a viewer expects.
    static var threadCount: Int32 { Int32(max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Parses `data`'s container (no AV1 data is decoded) and checks the budgets: the image's size
    /// against the pixel limit, and for sequences the frame count and the work of all frames.
    init(data: Data, options: DecodeOptions) throws(ImageError) {
        guard let decoder = avifDecoderCreate() else { throw .badImageData(reason: "AVIF: out of memory") }
        bytes = .allocate(byteCount: max(data.count, 1), alignment: 1)
        if !data.isEmpty { _ = data.copyBytes(to: bytes) }
        self.decoder = decoder
        Self.applyLimits(options, to: decoder)
        let result = avifDecoderSetIOMemory(decoder, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count)
        guard result == AVIF_RESULT_OK else { throw AVIFStatus.error(result, "reading") }
        let parsed = avifDecoderParse(decoder)
        guard parsed == AVIF_RESULT_OK else {
            // libavif refused the header; when its size or count limits did it, say which budget.
            try Self.checkBudgets(ofUnlimitedParseOf: data, options: options)
            throw AVIFStatus.error(parsed, "parsing", diagnostics: AVIFStatus.text(of: &decoder.pointee.diag))
        }
        try Self.checkBudgets(width: width, height: height, frameCount: frameCount, options: options)
    }

    deinit {
        avifDecoderDestroy(decoder)
        bytes.deallocate()
    }

    /// Sets libavif's limits from the budget, so it refuses over-limit headers itself before the AV1
    /// decoder allocates anything: the pixel count (which dav1d also enforces per frame), each side
    /// (libavif's default 32768, or less when the pixel limit is smaller), and the frame count. It is
    /// lenient about container details browsers accept (`strictFlags` off, as Chromium sets it).
    private static func applyLimits(_ options: DecodeOptions, to decoder: UnsafeMutablePointer<avifDecoder>) {
        let pixelLimit = UInt32(clamping: min(options.maxPixelCount, Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)))
        decoder.pointee.imageSizeLimit = max(1, pixelLimit)
        decoder.pointee.imageDimensionLimit = UInt32(clamping: min(options.maxPixelCount, Int(AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT)))
        if !options.firstFrameOnly {
            decoder.pointee.imageCountLimit = UInt32(clamping: max(1, options.maxFrameCount))
        }
        decoder.pointee.strictFlags = UInt32(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.maxThreads = threadCount
    }

    /// Our budget checks from the header: the canvas, then (sequences) frame count and all frames' work.
    private static func checkBudgets(width: Int, height: Int, frameCount: Int, options: DecodeOptions) throws(ImageError) {
        try options.checkDimensions(width: width, height: height)
        guard frameCount > 1 else { return }
        try options.checkAnimationWork(canvasWidth: width, canvasHeight: height,
                                       frameSizes: repeatElement(PixelSize(width: width, height: height), count: frameCount))
    }

    /// After libavif refused a header under our limits: parses it again under libavif's defaults (the
    /// container only) and throws the budget error the file's size or frame count deserves, if any.
    private static func checkBudgets(ofUnlimitedParseOf data: Data, options: DecodeOptions) throws(ImageError) {
        var unlimited = options
        unlimited.maxPixelCount = DecodeOptions.defaultMaxPixelCount
        unlimited.maxFrameCount = libavifDefaultImageCountLimit
        guard let probe = try? AVIFDecoder(data: data, options: unlimited) else { return }
        try checkBudgets(width: probe.width, height: probe.height, frameCount: probe.frameCount, options: options)
    }

    /// libavif's default frame-count limit, `AVIF_DEFAULT_IMAGE_COUNT_LIMIT` (12 hours at 60 fps; a macro
    /// Swift does not import).
    private static let libavifDefaultImageCountLimit = 12 * 3600 * 60

    var width: Int { Int(decoder.pointee.image.pointee.width) }
    var height: Int { Int(decoder.pointee.image.pointee.height) }
    /// Frames of an image sequence; 1 for a still.
    var frameCount: Int { Int(decoder.pointee.imageCount) }
    var hasAlpha: Bool { decoder.pointee.alphaPresent != 0 }

    /// Seconds frame `index` shows.
    func duration(at index: Int) -> TimeInterval {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK else { return 0 }
        return timing.duration
    }

    /// Colour, EXIF and XMP as the container gives them (filled in by the parse).
    var metadata: ImageMetadata {
        let image = decoder.pointee.image.pointee
        func data(_ rw: avifRWData) -> Data? { rw.size > 0 ? Data(bytes: rw.data, count: rw.size) : nil }
        return ImageMetadata(
            iccProfile: data(image.icc),
            exif: data(image.exif).flatMap(ExifPayload.tiff(from:)),
            xmp: data(image.xmp),
            cicp: CICP(colorPrimaries: Int(image.colorPrimaries), transferCharacteristics: Int(image.transferCharacteristics),
                       matrixCoefficients: Int(image.matrixCoefficients), fullRange: image.yuvRange == AVIF_RANGE_FULL))
    }

    /// The stored orientation (`irot`, `imir`).
    var orientation: ImageOrientation { AVIFOrientation.of(decoder.pointee.image) }

    /// Decodes frame `index` (from the nearest key frame when it is not the next one) to 8-bit RGB(A),
    /// cropped to its clean aperture. Damaged AV1 data throws `.badImageData`.
    func decodeFrame(at index: Int, layout: PixelLayout, watch: DecodeWatch) throws(ImageError) -> PixelBuffer {
        try watch.check()
        let result = index == decoder.pointee.imageIndex + 1
            ? avifDecoderNextImage(decoder) : avifDecoderNthImage(decoder, UInt32(index))
        guard result == AVIF_RESULT_OK else {
            throw AVIFStatus.error(result, "decoding frame \(index)", diagnostics: AVIFStatus.text(of: &decoder.pointee.diag))
        }
        try watch.check()
        return try AVIFPixels.rgb(of: decoder.pointee.image, layout: layout)
    }
}
