internal import CHEIF
import Foundation
import WebImageCore

/// The colour profile (ICC and `nclx`), EXIF and XMP of an image handle.
enum HEIFMetadata {
    static func of(_ handle: OpaquePointer) -> ImageMetadata {
        ImageMetadata(
            iccProfile: icc(handle), exif: block(handle, type: "Exif").flatMap(ExifPayload.tiff(from:)),
            xmp: block(handle, type: "mime", contentType: "application/rdf+xml"), cicp: cicp(handle))
    }

    private static func icc(_ handle: OpaquePointer) -> Data? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var profile = Data(count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return HEIFStatus.ok(error) ? profile : nil
    }

    private static func cicp(_ handle: OpaquePointer) -> CICP? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard HEIFStatus.ok(heif_image_handle_get_nclx_color_profile(handle, &nclx)), let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        return CICP(
            colorPrimaries: Int(nclx.pointee.color_primaries.rawValue),
            transferCharacteristics: Int(nclx.pointee.transfer_characteristics.rawValue),
            matrixCoefficients: Int(nclx.pointee.matrix_coefficients.rawValue),
            fullRange: nclx.pointee.full_range_flag != 0)
    }

    /// The first metadata block of `type` (and `contentType` for `mime` items), or nil.
    private static func block(_ handle: OpaquePointer, type: String, contentType: String? = nil) -> Data? {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
        for id in ids.prefix(listed) {
            if let contentType {
                guard let found = heif_image_handle_get_metadata_content_type(handle, id),
                    String(cString: found) == contentType
                else { continue }
            }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0 else { continue }
            var data = Data(count: size)
            let error = data.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            if HEIFStatus.ok(error) { return data }
        }
        return nil
    }
}
