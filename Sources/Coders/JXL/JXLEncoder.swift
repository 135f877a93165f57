internal import CJXL
import Foundation
import WebImageCore

/// Encodes stills and animations with libjxl.
///
/// Lossy: VarDCT at the Butteraugli distance cjxl derives from a 0...100 quality (see ``distance(quality:)``).
/// Lossless: modular mode, pixels exact. sRGB unless an ICC profile is given. Animations stream frame by
/// frame from the image's lazy frames, each with its duration in milliseconds.
struct JXLEncoder {
    let options: EncodeOptions
    let effort: Int

    /// Ticks per second of animations: milliseconds.
    static let ticksPerSecond: UInt32 = 1000

    /// cjxl's mapping from a 0...100 quality to a distance: 0.1 + (100 - q) * 0.09 from quality 30 up
    /// (quality 90 is distance 1, "visually lossless"), growing faster below.
    static func distance(quality: Double) -> Float {
        let q = max(0, min(1, quality)) * 100
        return Float(q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25)
    }

    func encode(_ image: Image) throws(ImageError) -> Data {
        guard let encoder = JxlEncoderCreate(nil) else { throw .badImageData(reason: "JPEG XL: out of memory") }
        defer { JxlEncoderDestroy(encoder) }
        let runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        if let runner { _ = JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner) }
        let animated = image.isAnimated && !options.firstFrameOnly
        let first = prepared(image.pixels)
        let layout: PixelLayout = first.layout
        try setHeader(
            encoder, width: first.width, height: first.height, layout: layout,
            animation: animated ? image.loopCount : nil)
        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw .badImageData(reason: "JPEG XL: out of memory")
        }
        if options.lossless {
            try check(JxlEncoderSetFrameLossless(settings, 1), encoder, "lossless mode")
        } else {
            try check(
                JxlEncoderSetFrameDistance(settings, Self.distance(quality: options.quality)), encoder, "distance")
        }
        try check(
            JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), encoder, "effort")
        if animated {
            var index = 0
            try image.forEachFrame { (frame) throws(ImageError) in
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = UInt32(max(1, (frame.duration / .seconds(1) * Double(Self.ticksPerSecond)).rounded()))
                try check(JxlEncoderSetFrameHeader(settings, &header), encoder, "frame \(index) header")
                try add(
                    prepared(frame.pixels.converted(to: layout)), settings: settings, encoder: encoder, index: index)
                index += 1
            }
        } else {
            try add(first, settings: settings, encoder: encoder, index: 0)
        }
        JxlEncoderCloseInput(encoder)
        return try output(encoder)
    }

    /// `source` packed, gray made RGB, and shrunk to `EncodeOptions/maxPixelSize` when set.
    private func prepared(_ source: PixelBuffer) -> PixelBuffer {
        var pixels = source.layout == .gray8 ? source.converted(to: .rgb8) : source.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        return pixels
    }

    private func setHeader(
        _ encoder: OpaquePointer, width: Int, height: Int, layout: PixelLayout, animation loops: Int?
    ) throws(ImageError) {
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        if layout == .rgba8 {
            info.alpha_bits = 8
            info.num_extra_channels = 1
        }
        // Lossless keeps the RGB values as they are; lossy converts to XYB.
        info.uses_original_profile = options.lossless ? 1 : 0
        if let loops {
            info.have_animation = 1
            info.animation.tps_numerator = Self.ticksPerSecond
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(max(0, loops))
        }
        try check(JxlEncoderSetBasicInfo(encoder, &info), encoder, "header")
        if let profile = options.iccProfile, !profile.isEmpty {
            let status = profile.withUnsafeBytes {
                JxlEncoderSetICCProfile(encoder, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
            }
            try check(status, encoder, "ICC profile")
        } else {
            var color = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&color, 0)
            try check(JxlEncoderSetColorEncoding(encoder, &color), encoder, "colour")
        }
    }

    /// Hands one frame's pixels to libjxl, which copies them.
    private func add(
        _ pixels: PixelBuffer, settings: OpaquePointer, encoder: OpaquePointer, index: Int
    ) throws(ImageError) {
        var format = JxlPixelFormat(
            num_channels: UInt32(pixels.layout.bytesPerPixel), data_type: JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
        let status = pixels.bytes.withUnsafeBytes {
            JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count)
        }
        try check(status, encoder, "frame \(index)")
    }

    /// The compressed file, collected in chunks of ``chunkSize``.
    private func output(_ encoder: OpaquePointer) throws(ImageError) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            var status = JXL_ENC_ERROR
            let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                var available = buffer.count
                status = JxlEncoderProcessOutput(encoder, &next, &available)
                return buffer.count - available
            }
            data.append(contentsOf: chunk.prefix(produced))
            if status == JXL_ENC_SUCCESS { return data }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { try check(status, encoder, "encoding"); return data }
        }
    }

    /// Output buffer of each ``output(_:)`` step: 1 MiB, a few steps for a 12 MP photo.
    static let chunkSize = 1 << 20

    private func check(_ status: JxlEncoderStatus, _ encoder: OpaquePointer, _ step: String) throws(ImageError) {
        guard status != JXL_ENC_SUCCESS else { return }
        throw .badImageData(reason: "JPEG XL: \(step) failed (libjxl error \(JxlEncoderGetError(encoder).rawValue))")
    }
}
