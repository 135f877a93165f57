internal import CHEIF
import Foundation
import WebImageCore

/// One parsed HEIF file: a copy of its bytes, the libheif context reading them and the primary image's
/// handle. Parsing reads the boxes only; nothing is decoded until ``HEIFPixels`` is asked.
final class HEIFFile {
    /// Owned copy of the file, which libheif reads in place for the context's life (freed after it).
    private let bytes: UnsafeMutableRawBufferPointer
    /// Owned; freed in `deinit` after the handle.
    private let context: OpaquePointer
    /// The primary image; owned, released in `deinit`.
    let primary: OpaquePointer

    /// libheif's own size limit (each side, checked while parsing, before any decoding) from the pixel
    /// limit: no side may be longer than the whole budget, nor than libheif's default of 32768.
    static func sideLimit(_ options: DecodeOptions) -> Int32 {
        Int32(clamping: min(options.maxPixelCount, libheifDefaultSideLimit))
    }

    /// libheif's default `MAX_IMAGE_WIDTH`/`MAX_IMAGE_HEIGHT`.
    static let libheifDefaultSideLimit = 32768

    init(data: Data, options: DecodeOptions) throws(ImageError) {
        _ = HEIFStatus.initialized
        guard let context = heif_context_alloc() else { throw .badImageData(reason: "HEIF: out of memory") }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        if !data.isEmpty { _ = data.copyBytes(to: bytes) }
        let primary: OpaquePointer
        do throws(ImageError) {
            primary = try Self.parse(context, bytes: bytes, count: data.count, options: options)
        } catch {
            // Not yet owned by `self` (whose deinit does not run for a half-made object): freed here.
            heif_context_free(context)
            bytes.deallocate()
            throw error
        }
        self.context = context
        self.bytes = bytes
        self.primary = primary
        try options.checkDimensions(width: width, height: height)
    }

    /// Reads the file's boxes under the side limit and returns the primary image's handle.
    private static func parse(
        _ context: OpaquePointer, bytes: UnsafeMutableRawBufferPointer, count: Int,
        options: DecodeOptions
    ) throws(ImageError) -> OpaquePointer {
        heif_context_set_maximum_image_size_limit(context, sideLimit(options))
        let read = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, count, nil)
        if !HEIFStatus.ok(read) {
            try throwBudgetError(for: read, options: options)
            try HEIFStatus.check(read, "reading")
        }
        var handle: OpaquePointer?
        try HEIFStatus.check(heif_context_get_primary_image_handle(context, &handle), "finding the primary image")
        guard let handle else { throw .badImageData(reason: "HEIF: no primary image") }
        return handle
    }

    deinit {
        heif_image_handle_release(primary)
        heif_context_free(context)
        bytes.deallocate()
    }

    /// libheif refuses sides over its limit while reading ("... image size 40000x40000 exceeds the
    /// maximum image size 32768x32768"); that is our pixel budget speaking, so say it with its error.
    private static func throwBudgetError(for error: heif_error, options: DecodeOptions) throws(ImageError) {
        guard error.code == heif_error_Memory_allocation_error || error.subcode == heif_suberror_Security_limit_exceeded
        else { return }
        let message = HEIFStatus.message(error)
        guard let marker = message.range(of: "image size ", options: .caseInsensitive) else { return }
        let numbers = message[marker.upperBound...].prefix { $0.isNumber || $0 == "x" }.split(separator: "x").compactMap
        { Int($0) }
        guard numbers.count == 2 else { return }
        try options.checkDimensions(width: numbers[0], height: numbers[1])
    }

    /// The primary image's size once its transformations (crop, rotation) are applied.
    var width: Int { Int(heif_image_handle_get_width(primary)) }
    var height: Int { Int(heif_image_handle_get_height(primary)) }

    /// The primary image's embedded thumbnails, each with its size (after its own transformations).
    /// Each handle is released by the caller (``HEIFFile/withThumbnails(_:)`` does it).
    func withThumbnails<R>(
        _ body: ([(handle: OpaquePointer, size: PixelSize)]) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        var thumbnails: [(handle: OpaquePointer, size: PixelSize)] = []
        defer { for thumbnail in thumbnails { heif_image_handle_release(thumbnail.handle) } }
        for id in ids.prefix(listed) {
            var handle: OpaquePointer?
            guard HEIFStatus.ok(heif_image_handle_get_thumbnail(primary, id, &handle)), let handle else { continue }
            thumbnails.append(
                (
                    handle,
                    PixelSize(
                        width: Int(heif_image_handle_get_width(handle)),
                        height: Int(heif_image_handle_get_height(handle)))
                ))
        }
        return try body(thumbnails)
    }
}
