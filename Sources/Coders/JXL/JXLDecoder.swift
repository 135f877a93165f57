internal import CJXL
import Foundation
import WebImageCore

/// One JPEG XL file being decoded: a copy of its bytes, libjxl's decoder and its thread runner. Reads
/// the header (size, orientation, alpha, animation, colour) on creation and then decodes frames in order,
/// rewinding when asked for an earlier one. Not thread-safe; ``JXLFrameSource`` keeps it behind a lock.
final class JXLDecoder {
    /// Owned copy of the file, given to libjxl whole; freed in `deinit` after the decoder.
    private let bytes: UnsafeMutableRawBufferPointer
    private let count: Int
    /// Owned; destroyed in `deinit`.
    private let decoder: OpaquePointer
    /// Owned thread pool libjxl decodes groups with; destroyed after the decoder.
    private let runner: UnsafeMutableRawPointer?
    /// The header.
    let info: JxlBasicInfo
    /// Colour as the file gives it.
    let metadata: ImageMetadata
    /// Whether libjxl leaves the pixels in their stored orientation (`DecodeOptions/applyOrientation` off).
    let keepsOrientation: Bool
    /// Index of the frame the next ``decodeNextFrame(watch:)`` returns.
    private(set) var nextFrame = 0

    /// Events every decode listens to: the header, colour, frame starts and finished frames.
    private static let events = Int32(
        JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue
            | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue)

    /// Reads `data`'s header and colour (no pixels) and checks the image's size against the pixel limit.
    init(data: Data, options: DecodeOptions) throws(ImageError) {
        guard let decoder = JxlDecoderCreate(nil) else { throw .badImageData(reason: "JPEG XL: out of memory") }
        self.decoder = decoder
        runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        bytes = .allocate(byteCount: max(data.count, 1), alignment: 1)
        count = data.count
        if !data.isEmpty { _ = data.copyBytes(to: bytes) }
        keepsOrientation = !options.applyOrientation
        // Every stored property but `info` and `metadata` is set; those come from the header below.
        Self.configure(decoder, runner: runner, keepsOrientation: keepsOrientation)
        let (info, metadata) = Self.readHeader(decoder, bytes: bytes, count: count, options: options)
        self.info = info.value ?? JxlBasicInfo()
        self.metadata = metadata
        if let error = info.error { throw error }
    }

    deinit {
        JxlDecoderDestroy(decoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        bytes.deallocate()
    }

    /// The settings every decode uses: the thread runner, orientation, straight alpha.
    private static func configure(_ decoder: OpaquePointer, runner: UnsafeMutableRawPointer?, keepsOrientation: Bool) {
        if let runner { _ = JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) }
        _ = JxlDecoderSetKeepOrientation(decoder, keepsOrientation ? 1 : 0)
        _ = JxlDecoderSetUnpremultiplyAlpha(decoder, 1)
    }

    /// Subscribes, gives libjxl the whole file and runs it to the colour event; the basic info (or the
    /// error that stopped it) and the colour metadata.
    private static func readHeader(
        _ decoder: OpaquePointer, bytes: UnsafeMutableRawBufferPointer, count: Int,
        options: DecodeOptions
    ) -> (info: (value: JxlBasicInfo?, error: ImageError?), ImageMetadata) {
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
                == JXL_DEC_SUCCESS
        else { return ((nil, .badImageData(reason: "JPEG XL: decoder setup failed")), ImageMetadata()) }
        JxlDecoderCloseInput(decoder)
        var info = JxlBasicInfo()
        var haveInfo = false
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                    return ((nil, .badImageData(reason: "JPEG XL: unreadable header")), ImageMetadata())
                }
                haveInfo = true
                do throws(ImageError) {
                    try options.checkDimensions(width: Int(info.xsize), height: Int(info.ysize))
                } catch { return ((info, error), ImageMetadata()) }
            case JXL_DEC_COLOR_ENCODING:
                return (
                    (info, haveInfo ? nil : .badImageData(reason: "JPEG XL: colour before header")),
                    colorMetadata(decoder)
                )
            case JXL_DEC_NEED_MORE_INPUT:
                return ((nil, .badImageData(reason: "JPEG XL: truncated header")), ImageMetadata())
            default:
                return ((nil, .badImageData(reason: "JPEG XL: malformed header")), ImageMetadata())
            }
        }
    }

    /// The ICC profile of the decoded pixels, unless they are plain sRGB (which needs none).
    static func colorMetadata(_ decoder: OpaquePointer) -> ImageMetadata {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
            == JXL_DEC_SUCCESS,
            encoding.color_space == JXL_COLOR_SPACE_RGB, encoding.primaries == JXL_PRIMARIES_SRGB,
            encoding.white_point == JXL_WHITE_POINT_D65, encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        {
            return ImageMetadata()
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0
        else {
            return ImageMetadata()
        }
        var profile = [UInt8](repeating: 0, count: size)
        guard
            JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &profile, size)
                == JXL_DEC_SUCCESS
        else {
            return ImageMetadata()
        }
        return ImageMetadata(iccProfile: Data(profile))
    }

    var hasAlpha: Bool { info.alpha_bits > 0 }
    var isAnimated: Bool { info.have_animation != 0 }

    /// The EXIF orientation the header gives (1 to 8).
    var orientation: ImageOrientation { ImageOrientation(rawValue: Int(info.orientation.rawValue)) ?? .up }

    /// Size of the decoded frames: the stored size, turned when libjxl applies a 90-degree orientation.
    var outputSize: PixelSize {
        let turned = !keepsOrientation && orientation.swapsDimensions
        return turned
            ? PixelSize(width: Int(info.ysize), height: Int(info.xsize))
            : PixelSize(width: Int(info.xsize), height: Int(info.ysize))
    }

    /// Starts again from the first frame. A full reset, not `JxlDecoderRewind`: after a rewind libjxl
    /// 0.7 returned frame 0's pixels for the frames that followed.
    func rewind() throws(ImageError) {
        JxlDecoderReset(decoder)
        Self.configure(decoder, runner: runner, keepsOrientation: keepsOrientation)
        guard JxlDecoderSubscribeEvents(decoder, Self.events) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
                == JXL_DEC_SUCCESS
        else {
            throw .badImageData(reason: "JPEG XL: rewinding failed")
        }
        JxlDecoderCloseInput(decoder)
        nextFrame = 0
    }

    /// Skips `amount` frames without decoding their pixels.
    func skip(_ amount: Int) {
        guard amount > 0 else { return }
        JxlDecoderSkipFrames(decoder, amount)
        nextFrame += amount
    }

    /// Decodes the next frame to 8-bit `layout` pixels (libjxl rounds higher bit depths, composes
    /// animation frames onto the canvas, un-premultiplies alpha and applies the orientation unless kept).
    func decodeNextFrame(layout: PixelLayout, watch: DecodeWatch) throws(ImageError) -> PixelBuffer {
        try watch.check()
        let size = outputSize
        var format = JxlPixelFormat(
            num_channels: UInt32(layout.bytesPerPixel), data_type: JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
        var failure: ImageError? = nil
        let byteCount = size.width * size.height * layout.bytesPerPixel
        // libjxl writes every byte of the buffer before FULL_IMAGE; on failure the array is left empty.
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            initialized = 0
            while failure == nil {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME:
                    failure = watch.stopReason
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    var needed = 0
                    guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
                        needed == byteCount,
                        JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, byteCount) == JXL_DEC_SUCCESS
                    else {
                        failure = .badImageData(reason: "JPEG XL: frame buffer of an unexpected size")
                        break
                    }
                case JXL_DEC_FULL_IMAGE:
                    initialized = byteCount
                    return
                case JXL_DEC_SUCCESS:
                    failure = .badImageData(reason: "JPEG XL: no frame \(nextFrame)")
                case JXL_DEC_NEED_MORE_INPUT:
                    failure = .badImageData(reason: "JPEG XL: truncated in frame \(nextFrame)")
                default:
                    failure = .badImageData(reason: "JPEG XL: frame \(nextFrame) is malformed")
                }
            }
        }
        if let failure { throw failure }
        nextFrame += 1
        return PixelBuffer(width: size.width, height: size.height, layout: layout, bytes: pixels)
    }
}

extension JXLDecoder {
    /// The displayed frames' durations, read from the frame headers only (no pixels are
    /// decoded), stopping with the frame-count budget's error past `DecodeOptions/maxFrameCount`.
    static func frameDurations(
        of data: Data, info: JxlBasicInfo, options: DecodeOptions
    ) throws(ImageError) -> [Duration] {
        guard let decoder = JxlDecoderCreate(nil) else { throw .badImageData(reason: "JPEG XL: out of memory") }
        defer { JxlDecoderDestroy(decoder) }
        // tps_numerator ticks last tps_denominator seconds; computed in integers, so 1/1000 s ticks are exact.
        let ticks = Int(info.animation.tps_numerator), seconds = Int64(info.animation.tps_denominator)
        var durations: [Duration] = []
        let result: ImageError? = data.withUnsafeBytes { raw in
            guard JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_FRAME.rawValue)) == JXL_DEC_SUCCESS,
                JxlDecoderSetInput(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count) == JXL_DEC_SUCCESS
            else { return .badImageData(reason: "JPEG XL: decoder setup failed") }
            JxlDecoderCloseInput(decoder)
            while true {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_FRAME:
                    var header = JxlFrameHeader()
                    guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
                        return .badImageData(reason: "JPEG XL: unreadable frame header")
                    }
                    durations.append(ticks == 0 ? .zero : .seconds(Int64(header.duration) * seconds) / ticks)
                    if !options.firstFrameOnly && durations.count > options.maxFrameCount {
                        return .decodeBudgetExceeded(.frameCount, value: durations.count, limit: options.maxFrameCount)
                    }
                    if options.firstFrameOnly { return nil }
                case JXL_DEC_SUCCESS:
                    return nil
                case JXL_DEC_NEED_MORE_INPUT:
                    // A truncated animation keeps the frames whose headers arrived; a damaged frame ends it later.
                    return durations.isEmpty ? .badImageData(reason: "JPEG XL: truncated before the first frame") : nil
                default:
                    return durations.isEmpty ? .badImageData(reason: "JPEG XL: malformed frame header") : nil
                }
            }
        }
        if let result { throw result }
        return durations
    }
}
