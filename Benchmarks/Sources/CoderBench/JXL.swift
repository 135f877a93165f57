import CRawAVIFHEIF
import Foundation
import WebImage

/// The JPEG XL rows of `coder-bench avif-heif`: decode and encode of the 12 MP photo against libjxl called
/// directly with the same settings (distance 1.0 = quality 0.9, effort 7, libjxl's thread runner).
func runJXLBenchmarks(photo: PixelBuffer, encode: Bool) throws {
    let coder = JXLCoder()
    let options = EncodeOptions(quality: 0.9)
    let jxl = try coder.encode(Image(pixels: photo), as: .jpegXL, options: options)
    print("\nJPEG XL: libjxl \(JxlDecoderVersion()), VarDCT distance 1.0 (quality 0.9), effort 7, all cores\n")
    print(row(["case", "ours ms", "raw ms", "ratio"]))
    try compare(
        "JPEG XL decode", runs: encode ? 7 : 15, ours: { _ = try coder.decode(jxl, options: DecodeOptions()) },
        raw: { _ = RawJXL.decode(jxl) })
    if encode {
        try compare(
            "JPEG XL encode", runs: 2,
            ours: { _ = try coder.encode(Image(pixels: photo), as: .jpegXL, options: options) },
            raw: { _ = RawJXL.encode(photo, distance: 1.0, effort: 7) })
    }
}

/// libjxl called directly, the way a program without SwiftWebImage would.
enum RawJXL {
    static func decode(_ data: Data) -> Int {
        let decoder = JxlDecoderCreate(nil)
        defer { JxlDecoderDestroy(decoder) }
        let runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        defer { JxlThreadParallelRunnerDestroy(runner) }
        JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner)
        JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_FULL_IMAGE.rawValue))
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var pixels: [UInt8] = []
        data.withUnsafeBytes { raw in
            JxlDecoderSetInput(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            JxlDecoderCloseInput(decoder)
            loop: while true {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    var size = 0
                    JxlDecoderImageOutBufferSize(decoder, &format, &size)
                    pixels = [UInt8](repeating: 0, count: size)
                    pixels.withUnsafeMutableBytes {
                        _ = JxlDecoderSetImageOutBuffer(decoder, &format, $0.baseAddress, size)
                    }
                case JXL_DEC_FULL_IMAGE: break loop
                default: break loop
                }
            }
        }
        return pixels.count
    }

    static func encode(_ photo: PixelBuffer, distance: Float, effort: Int64) -> Int {
        let encoder = JxlEncoderCreate(nil)
        defer { JxlEncoderDestroy(encoder) }
        let runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        defer { JxlThreadParallelRunnerDestroy(runner) }
        JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner)
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(photo.width)
        info.ysize = UInt32(photo.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        JxlEncoderSetBasicInfo(encoder, &info)
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, 0)
        JxlEncoderSetColorEncoding(encoder, &color)
        let settings = JxlEncoderFrameSettingsCreate(encoder, nil)
        JxlEncoderSetFrameDistance(settings, distance)
        JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort)
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        photo.bytes.withUnsafeBytes { _ = JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            var available = output.count
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                return JxlEncoderProcessOutput(encoder, &next, &available)
            }
            total += output.count - available
            if status != JXL_ENC_NEED_MORE_OUTPUT { return total }
        }
    }
}
