internal import CAVIF
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
    convenience init(data: Data, options: DecodeOptions) throws(ImageError) {
        do throws(ImageError) {
            try self.init(data: data) { Self.applyLimits(options, to: $0) }
        } catch {
            // libavif refused the header; when its size or count limits did it, say which budget.
            if case .badImageData(let reason) = error, let size = Self.refusedSize(in: reason) {
                try options.checkDimensions(width: size.width, height: size.height)
            }
            if let probe = try? AVIFDecoder(data: data, configure: Self.removeLimits) {
                try Self.checkBudgets(
                    width: probe.width, height: probe.height, frameCount: probe.frameCount, options: options)
            }
            throw error
        }
        try Self.checkBudgets(width: width, height: height, frameCount: frameCount, options: options)
    }

    /// Copies `data`, sets the decoder up with `configure` and parses the container.
    private init(data: Data, configure: (UnsafeMutablePointer<avifDecoder>) -> Void) throws(ImageError) {
        guard let decoder = avifDecoderCreate() else { throw .badImageData(reason: "AVIF: out of memory") }
        bytes = .allocate(byteCount: max(data.count, 1), alignment: 1)
        if !data.isEmpty { _ = data.copyBytes(to: bytes) }
        self.decoder = decoder
        configure(decoder)
        let result = avifDecoderSetIOMemory(decoder, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count)
        guard result == AVIF_RESULT_OK else { throw AVIFStatus.error(result, "reading") }
        let parsed = avifDecoderParse(decoder)
        guard parsed == AVIF_RESULT_OK else {
            throw AVIFStatus.error(parsed, "parsing", diagnostics: AVIFStatus.text(of: &decoder.pointee.diag))
        }
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
        decoder.pointee.imageDimensionLimit = UInt32(
            clamping: min(options.maxPixelCount, Int(AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT)))
        if !options.firstFrameOnly {
            decoder.pointee.imageCountLimit = UInt32(clamping: max(1, options.maxFrameCount))
        }
        decoder.pointee.strictFlags = UInt32(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.maxThreads = threadCount
    }

    /// Our budget checks from the header: the canvas, then (sequences) frame count and all frames' work.
    private static func checkBudgets(
        width: Int, height: Int, frameCount: Int, options: DecodeOptions
    ) throws(ImageError) {
        try options.checkDimensions(width: width, height: height)
        guard frameCount > 1 else { return }
        try options.checkAnimationWork(
            canvasWidth: width, canvasHeight: height,
            frameSizes: repeatElement(PixelSize(width: width, height: height), count: frameCount))
    }

    /// The size in libavif's refusal of an item or track over its size limits ("... dimensions are too
    /// large [40000x40000]"), or nil.
    private static func refusedSize(in reason: String) -> PixelSize? {
        guard let marker = reason.range(of: "dimensions are too large [") else { return nil }
        let numbers = reason[marker.upperBound...].prefix { $0 != "]" }.split(separator: "x").compactMap { Int($0) }
        return numbers.count == 2 ? PixelSize(width: numbers[0], height: numbers[1]) : nil
    }

    /// libavif's widest limits, for parsing a refused header again to learn its size and frame count
    /// (the container only; nothing is decoded with these). libavif refuses a size limit above its
    /// default (dav1d's own limit), so over that only the refusal's text tells the size.
    private static func removeLimits(_ decoder: UnsafeMutablePointer<avifDecoder>) {
        decoder.pointee.imageSizeLimit = UInt32(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)
        decoder.pointee.imageDimensionLimit = 0
        decoder.pointee.imageCountLimit = 0
        decoder.pointee.strictFlags = UInt32(AVIF_STRICT_DISABLED.rawValue)
    }

    var width: Int { Int(decoder.pointee.image.pointee.width) }
    var height: Int { Int(decoder.pointee.image.pointee.height) }
    /// Frames of an image sequence; 1 for a still.
    var frameCount: Int { Int(decoder.pointee.imageCount) }
    var hasAlpha: Bool { decoder.pointee.alphaPresent != 0 }

    /// How long frame `index` shows, as the track states it (zero when it does not).
    func duration(at index: Int) -> Duration {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK, timing.timescale > 0 else {
            return .zero
        }
        // From the track's integer timescale, exactly, rather than libavif's rounded seconds.
        return .seconds(Int64(clamping: timing.durationInTimescales)) / Int(clamping: timing.timescale)
    }

    /// Colour, EXIF and XMP as the container gives them (filled in by the parse).
    var metadata: ImageMetadata {
        let image = decoder.pointee.image.pointee
        func data(_ rw: avifRWData) -> Data? { rw.size > 0 ? Data(bytes: rw.data, count: rw.size) : nil }
        return ImageMetadata(
            iccProfile: data(image.icc),
            exif: data(image.exif).flatMap(ExifPayload.tiff(from:)),
            xmp: data(image.xmp),
            cicp: CICP(
                colorPrimaries: Int(image.colorPrimaries), transferCharacteristics: Int(image.transferCharacteristics),
                matrixCoefficients: Int(image.matrixCoefficients), fullRange: image.yuvRange == AVIF_RANGE_FULL))
    }

    /// The stored orientation (`irot`, `imir`).
    var orientation: ImageOrientation { AVIFOrientation.of(decoder.pointee.image) }

    /// Decodes frame `index` (from the nearest key frame when it is not the next one) to 8-bit RGB(A),
    /// cropped to its clean aperture. Damaged AV1 data throws `.badImageData`.
    func decodeFrame(at index: Int, layout: PixelLayout, watch: DecodeWatch) throws(ImageError) -> PixelBuffer {
        try watch.check()
        let result =
            index == decoder.pointee.imageIndex + 1
            ? avifDecoderNextImage(decoder) : avifDecoderNthImage(decoder, UInt32(index))
        guard result == AVIF_RESULT_OK else {
            throw AVIFStatus.error(
                result, "decoding frame \(index)", diagnostics: AVIFStatus.text(of: &decoder.pointee.diag))
        }
        try watch.check()
        return try AVIFPixels.rgb(of: decoder.pointee.image, layout: layout)
    }
}
