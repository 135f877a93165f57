internal import CJXL
import Foundation
import WebImageCore

/// Decodes the first frame of a JPEG XL while it downloads: libjxl consumes the bytes as they come, and
/// ``partialImage()`` asks it (`JxlDecoderFlushImage`) for what its progressive passes have produced so
/// far (the 1:8 DC image first, then the refinement passes, of a progressive file; the groups decoded so
/// far of another).
final class JXLIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    /// Owned; destroyed in `deinit`.
    private let decoder: OpaquePointer?
    /// Bytes appended that libjxl has not consumed yet (it reports how many it left at each release).
    private var pending: [UInt8] = []
    /// The frame's pixel buffer, owned here and given to libjxl from NEED_IMAGE_OUT_BUFFER until the frame
    /// is complete; freed in `deinit`.
    private var output: UnsafeMutableRawBufferPointer?
    private var info = JxlBasicInfo()
    private var metadata = ImageMetadata()
    private var layout: PixelLayout = .rgb8
    private var complete = false
    private var failure: ImageError?

    init(options: DecodeOptions) {
        self.options = options
        decoder = JxlDecoderCreate(nil)
        guard let decoder else { return }
        _ = JxlDecoderSetKeepOrientation(decoder, options.applyOrientation ? 0 : 1)
        _ = JxlDecoderSetUnpremultiplyAlpha(decoder, 1)
        _ = JxlDecoderSubscribeEvents(
            decoder,
            Int32(
                JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue
                    | JXL_DEC_FULL_IMAGE.rawValue))
    }

    deinit {
        if let decoder { JxlDecoderDestroy(decoder) }
        output?.deallocate()
    }

    private var size: PixelSize {
        let turned =
            options.applyOrientation
            && (ImageOrientation(rawValue: Int(info.orientation.rawValue))?.swapsDimensions ?? false)
        return turned
            ? PixelSize(width: Int(info.ysize), height: Int(info.xsize))
            : PixelSize(width: Int(info.xsize), height: Int(info.ysize))
    }

    func append(_ bytes: Data) throws(ImageError) {
        if let failure { throw failure }
        guard let decoder else { throw .badImageData(reason: "JPEG XL: out of memory") }
        guard !complete else { return }
        let watch = options.startWatch()
        pending += bytes
        do throws(ImageError) {
            try watch.check()
            // libjxl reads `pending` between SetInput and ReleaseInput, both inside this closure.
            let result: Result<Int, ImageError> = pending.withUnsafeBufferPointer { input in
                guard JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                    return .failure(.badImageData(reason: "JPEG XL: input refused"))
                }
                let outcome = process(decoder, watch: watch)
                let left = JxlDecoderReleaseInput(decoder)
                return outcome.map { left }
            }
            let left = try result.get()
            pending.removeFirst(pending.count - left)
        } catch {
            failure = error
            throw error
        }
    }

    /// Runs libjxl over the input it has until it needs more or the frame is done.
    private func process(_ decoder: OpaquePointer, watch: DecodeWatch) -> Result<Void, ImageError> {
        while true {
            if let reason = watch.stopReason { return .failure(reason) }
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                    return .failure(.badImageData(reason: "JPEG XL: unreadable header"))
                }
                do throws(ImageError) {
                    try options.checkDimensions(width: Int(info.xsize), height: Int(info.ysize))
                } catch { return .failure(error) }
                layout = info.alpha_bits > 0 ? .rgba8 : .rgb8
            case JXL_DEC_COLOR_ENCODING:
                metadata = JXLDecoder.colorMetadata(decoder)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                let byteCount = size.width * size.height * layout.bytesPerPixel
                var format = pixelFormat
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: 1)
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                output = buffer
                guard JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, byteCount) == JXL_DEC_SUCCESS
                else {
                    return .failure(.badImageData(reason: "JPEG XL: frame buffer refused"))
                }
            case JXL_DEC_FULL_IMAGE:
                complete = true
                return .success(())
            case JXL_DEC_NEED_MORE_INPUT:
                return .success(())
            case JXL_DEC_SUCCESS:
                return .success(())
            default:
                return .failure(.badImageData(reason: "JPEG XL: malformed file"))
            }
        }
    }

    private var pixelFormat: JxlPixelFormat {
        JxlPixelFormat(
            num_channels: UInt32(layout.bytesPerPixel), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN,
            align: 0)
    }

    /// The pixels in the output buffer now, as an image.
    private func image(isIncomplete: Bool) -> Image? {
        guard let output else { return nil }
        let pixels = PixelBuffer(width: size.width, height: size.height, layout: layout, bytes: [UInt8](output))
        return Image(
            pixels: options.resizedToOutput(pixels), format: .jpegXL,
            orientation: ImageOrientation(rawValue: Int(info.orientation.rawValue)) ?? .up,
            isOrientationApplied: options.applyOrientation, scale: options.scale, metadata: metadata,
            isIncomplete: isIncomplete)
    }

    func partialImage() -> Image? {
        guard failure == nil, let decoder, output != nil else { return nil }
        if complete { return image(isIncomplete: false) }
        // Nothing to show until libjxl has decoded a pass it can render.
        guard JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS else { return nil }
        return image(isIncomplete: true)
    }

    func finish() throws(ImageError) -> Image {
        if let failure { throw failure }
        if complete, let image = image(isIncomplete: false) { return image }
        if options.allowPartialImage, let partial = partialImage() { return partial }
        throw .badImageData(reason: "JPEG XL: truncated (the first frame is incomplete)")
    }
}
