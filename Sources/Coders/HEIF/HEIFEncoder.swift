internal import CHEIF
import Foundation
import WebImageCore

/// Encodes one still as HEIC with libheif's HEVC encoder (x265 on Debian 12).
///
/// Lossy: libheif's RGB to YUV conversion with the requested chroma subsampling, quality 0...1 as
/// libheif's 0...100. Lossless: x265's lossless mode, 4:4:4 and the identity matrix (`nclx` matrix 0),
/// so the RGB values are stored as they are. Animations are written as their first frame.
struct HEIFEncoder {
    let options: EncodeOptions
    let x265Preset: String?

    func encode(_ source: PixelBuffer) throws(ImageError) -> Data {
        _ = HEIFStatus.initialized
        var pixels = source.layout == .gray8 ? source.converted(to: .rgb8) : source.packed()
        pixels = pixels.fitting(within: options.maxPixelSize)
        guard let context = heif_context_alloc() else { throw .badImageData(reason: "HEIF: out of memory") }
        defer { heif_context_free(context) }
        let encoder = try makeEncoder(context)
        defer { heif_encoder_release(encoder) }
        let image = try makeImage(pixels)
        defer { heif_image_release(image) }
        guard let encoding = heif_encoding_options_alloc() else { throw .badImageData(reason: "HEIF: out of memory") }
        defer { heif_encoding_options_free(encoding) }
        let nclx = heif_nclx_color_profile_alloc()
        defer { heif_nclx_color_profile_free(nclx) }
        if let nclx {
            // sRGB primaries and transfer; BT.601 for lossy like heif-enc, the identity matrix for lossless.
            nclx.pointee.color_primaries = heif_color_primaries_ITU_R_BT_709_5
            nclx.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
            nclx.pointee.matrix_coefficients =
                options.lossless
                ? heif_matrix_coefficients_RGB_GBR : heif_matrix_coefficients_ITU_R_BT_601_6
            nclx.pointee.full_range_flag = 1
            encoding.pointee.output_nclx_profile = nclx
        }
        try HEIFStatus.check(heif_context_encode_image(context, image, encoder, encoding, nil), "encoding")
        return try write(context)
    }

    private func makeEncoder(_ context: OpaquePointer) throws(ImageError) -> OpaquePointer {
        var encoder: OpaquePointer?
        try HEIFStatus.check(
            heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder),
            "this libheif has no HEVC encoder")
        guard let encoder else { throw .badImageData(reason: "HEIF: no HEVC encoder") }
        do throws(ImageError) {
            if options.lossless {
                try HEIFStatus.check(heif_encoder_set_lossless(encoder, 1), "lossless mode")
            } else {
                let quality = Int32((max(0, min(1, options.quality)) * 100).rounded())
                try HEIFStatus.check(heif_encoder_set_lossy_quality(encoder, quality), "quality")
            }
            let chroma = chromaParameter
            try HEIFStatus.check(heif_encoder_set_parameter_string(encoder, "chroma", chroma), "chroma \(chroma)")
            if let x265Preset {
                try HEIFStatus.check(
                    heif_encoder_set_parameter_string(encoder, "preset", x265Preset), "preset \(x265Preset)")
            }
        } catch {
            heif_encoder_release(encoder)
            throw error
        }
        return encoder
    }

    /// libheif's `chroma` parameter for the options' subsampling (4:4:4 for lossless).
    private var chromaParameter: String {
        if options.lossless { return "444" }
        switch options.chromaSubsampling {
        case .none: return "444"
        case .half: return "422"
        case .quarter: return "420"
        }
    }

    /// An interleaved RGB(A) libheif image holding a copy of `pixels` (rows packed), with the ICC profile.
    private func makeImage(_ pixels: PixelBuffer) throws(ImageError) -> OpaquePointer {
        let hasAlpha = pixels.layout == .rgba8
        var image: OpaquePointer?
        try HEIFStatus.check(
            heif_image_create(
                Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB,
                hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image),
            "creating the image")
        guard let image else { throw .badImageData(reason: "HEIF: out of memory") }
        do throws(ImageError) {
            try HEIFStatus.check(
                heif_image_add_plane(
                    image, heif_channel_interleaved, Int32(pixels.width),
                    Int32(pixels.height), 8), "allocating the image")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
                throw .badImageData(reason: "HEIF: image has no plane")
            }
            let rowBytes = pixels.width * pixels.layout.bytesPerPixel
            // Copies each packed row into libheif's plane, which `image` owns and may pad to `stride`.
            pixels.bytes.withUnsafeBufferPointer { source in
                for row in 0..<pixels.height {
                    (plane + row * Int(stride)).update(from: source.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
            if let profile = options.iccProfile, !profile.isEmpty {
                let set = profile.withUnsafeBytes {
                    heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count)
                }
                try HEIFStatus.check(set, "embedding the ICC profile")
            }
        } catch {
            heif_image_release(image)
            throw error
        }
        return image
    }

    /// The file libheif writes for `context`, collected through its writer callback.
    private func write(_ context: OpaquePointer) throws(ImageError) -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, bytes, size, userdata in
            // `userdata` is the `sink` below, alive for the whole heif_context_write call.
            let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
            if let bytes { sink.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: size) }
            // libheif's errors always carry a message; a static string lives for the process.
            let message = UnsafeRawPointer(("Success" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: message)
        }
        let error = withExtendedLifetime(sink) {
            heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque())
        }
        try HEIFStatus.check(error, "writing")
        return sink.data
    }
}
