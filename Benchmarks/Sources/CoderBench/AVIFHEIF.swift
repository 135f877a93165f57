import CRawAVIFHEIF
import Foundation
import WebImage

/// `coder-bench avif-heif` (and the end of a full run): AVIF, HEIC and JPEG XL (JXL.swift) decode and encode of the 12 MP
/// photo against libavif and libheif called directly with the same settings, and a 256 px thumbnail of
/// a 12 MP HEIC that embeds a 320x240 thumbnail (as iPhones write) against a full decode + resize.
func runAVIFHEIFBenchmarks(encode: Bool = true) throws {
    let photo = try Photos.twelveMegapixels()
    let avifCoder = AVIFCoder()
    let heifCoder = HEIFCoder()
    let quality = 0.8
    let avif = try avifCoder.encode(Image(pixels: photo), as: .avif, options: EncodeOptions(quality: quality))
    let heic = try heifCoder.encode(Image(pixels: photo), as: .heic, options: EncodeOptions(quality: quality))

    print("\nAVIF and HEIC, 12 MP photo (4000x3000), best of N; ratio = ours / the C library called directly")
    print(
        "AVIF: libavif \(String(cString: avifVersion())), dav1d decode, aom encode at speed 6, 4:2:0, quantizer \(RawAVIF.quantizer(quality)) (quality \(quality)), all cores"
    )
    print(
        "HEIC: libheif \(String(cString: heif_get_version())), libde265 decode, x265 encode (libheif's default preset), 4:2:0, quality \(Int(quality * 100))\n"
    )
    print(row(["case", "ours ms", "raw ms", "ratio"]))
    try compare(
        "AVIF decode", runs: encode ? 7 : 15, ours: { _ = try avifCoder.decode(avif, options: DecodeOptions()) },
        raw: { _ = RawAVIF.decode(avif) })
    if encode {
        try compare(
            "AVIF encode", runs: 2,
            ours: {
                _ = try avifCoder.encode(Image(pixels: photo), as: .avif, options: EncodeOptions(quality: quality))
            },
            raw: { _ = RawAVIF.encode(photo, quality: quality) })
    }
    try compare(
        "HEIC decode", runs: encode ? 7 : 15, ours: { _ = try heifCoder.decode(heic, options: DecodeOptions()) },
        raw: { _ = RawHEIF.decode(heic) })
    if encode {
        try compare(
            "HEIC encode", runs: 2,
            ours: {
                _ = try heifCoder.encode(Image(pixels: photo), as: .heic, options: EncodeOptions(quality: quality))
            },
            raw: { _ = RawHEIF.encode(photo, quality: Int32(quality * 100)) })
    }

    // heif-enc writes the embedded thumbnail (`-t 320`: 320x240, what an iPhone embeds).
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let png = scratch.appendingPathComponent("photo-for-heic.png")
    let withThumbnail = scratch.appendingPathComponent("photo-thumbnail.heic")
    try PNGCoder().encode(Image(pixels: photo), as: .png, options: EncodeOptions(compressionLevel: 1)).write(to: png)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
    process.arguments = ["-q", "80", "-t", "320", png.path, "-o", withThumbnail.path]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let thumbnailed = try Data(contentsOf: withThumbnail)
    let full = try bestTime(runs: 3) {
        let image = try heifCoder.decode(thumbnailed, options: DecodeOptions())
        _ = ImageResampler.resample(image.pixels, width: 256, height: 192)
    }
    let ours = try bestTime(runs: 5) { _ = try heifCoder.decode(thumbnailed, options: thumbnail) }
    print("\n256 px thumbnail of a 12 MP HEIC with a 320x240 embedded thumbnail (heif-enc -q 80 -t 320), best of 5/3\n")
    print(row(["case", "ms", "", "vs full"]))
    print(
        row(["HEIC: ours thumbnail (embedded)", String(format: "%.1f", ours), "", String(format: "%.3fx", ours / full)])
    )
    print(row(["HEIC: full decode + resize", String(format: "%.1f", full), "", "1x"]))
    try runJXLBenchmarks(photo: photo, encode: encode)
}

/// libavif called directly with the settings AVIFCoder uses.
enum RawAVIF {
    static var threads: Int32 { Int32(ProcessInfo.processInfo.activeProcessorCount) }

    static func quantizer(_ quality: Double) -> Int32 { Int32(((1 - quality) * 63).rounded()) }

    /// Parse, decode and convert to 8-bit RGB; returns the byte count.
    static func decode(_ data: Data) -> Int {
        let decoder = avifDecoderCreate()!
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = threads
        let image = avifImageCreateEmpty()!
        defer { avifImageDestroy(image) }
        let result = data.withUnsafeBytes {
            avifDecoderReadMemory(decoder, image, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
        }
        guard result == AVIF_RESULT_OK else { return 0 }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGB
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        avifImageYUVToRGB(image, &rgb)
        return Int(rgb.rowBytes * rgb.height)
    }

    static func encode(_ photo: PixelBuffer, quality: Double) -> Int {
        let image = avifImageCreate(UInt32(photo.width), UInt32(photo.height), 8, AVIF_PIXEL_FORMAT_YUV420)!
        defer { avifImageDestroy(image) }
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGB
        rgb.rowBytes = UInt32(photo.bytesPerRow)
        var bytes = photo.bytes
        bytes.withUnsafeMutableBufferPointer {
            rgb.pixels = $0.baseAddress; _ = avifImageRGBToYUV(image, &rgb)
        }
        let encoder = avifEncoderCreate()!
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.maxThreads = threads
        encoder.pointee.speed = 6
        let q = quantizer(quality)
        (encoder.pointee.minQuantizer, encoder.pointee.maxQuantizer) = (q, q)
        (encoder.pointee.minQuantizerAlpha, encoder.pointee.maxQuantizerAlpha) = (q, q)
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        guard avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK else { return 0 }
        return output.size
    }
}

/// libheif called directly with the settings HEIFCoder uses.
enum RawHEIF {
    static func decode(_ data: Data) -> Int {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        return data.withUnsafeBytes { raw -> Int in
            guard
                heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil).code
                    == heif_error_Ok
            else { return 0 }
            var handle: OpaquePointer?
            heif_context_get_primary_image_handle(context, &handle)
            defer { heif_image_handle_release(handle) }
            let options = heif_decoding_options_alloc()
            defer { heif_decoding_options_free(options) }
            options?.pointee.convert_hdr_to_8bit = 1
            var image: OpaquePointer?
            heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
            defer { heif_image_release(image) }
            var stride: Int32 = 0
            _ = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)
            return Int(stride) * Int(heif_image_get_height(image, heif_channel_interleaved))
        }
    }

    static func encode(_ photo: PixelBuffer, quality: Int32) -> Int {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder)
        defer { heif_encoder_release(encoder) }
        heif_encoder_set_lossy_quality(encoder, quality)
        heif_encoder_set_parameter_string(encoder, "chroma", "420")
        var image: OpaquePointer?
        heif_image_create(
            Int32(photo.width), Int32(photo.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image)
        defer { heif_image_release(image) }
        heif_image_add_plane(image, heif_channel_interleaved, Int32(photo.width), Int32(photo.height), 8)
        var stride: Int32 = 0
        let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride)!
        photo.bytes.withUnsafeBufferPointer { source in
            for row in 0..<photo.height {
                (plane + row * Int(stride)).update(
                    from: source.baseAddress! + row * photo.bytesPerRow, count: photo.width * 3)
            }
        }
        let options = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(options) }
        let nclx = heif_nclx_color_profile_alloc()
        defer { heif_nclx_color_profile_free(nclx) }
        nclx!.pointee.color_primaries = heif_color_primaries_ITU_R_BT_709_5
        nclx!.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
        nclx!.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx!.pointee.full_range_flag = 1
        options!.pointee.output_nclx_profile = nclx
        heif_context_encode_image(context, image, encoder, options, nil)
        var size = 0
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, _, count, userdata in
            userdata!.assumingMemoryBound(to: Int.self).pointee += count
            return heif_error(
                code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                message: UnsafeRawPointer(("Success" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self))
        }
        heif_context_write(context, &writer, &size)
        return size
    }
}
