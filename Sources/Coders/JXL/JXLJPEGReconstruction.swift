internal import CJXL
import Foundation
import WebImageCore

/// Rebuilds the original JPEG from a JPEG XL's reconstruction data (`jbrd` box), as `djxl out.jpg` does.
enum JXLJPEGReconstruction {
    /// First size of the JPEG buffer relative to the JPEG XL file (recompression saves about 20 %, so
    /// the JPEG is a little larger); doubled whenever libjxl asks for more.
    static let initialGrowth = 2
    /// Smallest first buffer: 4 KiB, more than the headers of any JPEG, so tiny files rarely grow it.
    static let minimumBuffer = 4096

    static func jpeg(from data: Data) throws(ImageError) -> Data? {
        guard let decoder = JxlDecoderCreate(nil) else { throw .badImageData(reason: "JPEG XL: out of memory") }
        defer { JxlDecoderDestroy(decoder) }
        // Owned here, handed to libjxl between SetJPEGBuffer and ReleaseJPEGBuffer, replaced (after a
        // release) by a buffer twice as large when libjxl asks for more; freed on return.
        var capacity = max(minimumBuffer, data.count * initialGrowth)
        var output = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { output.deallocate() }
        var written = 0
        var reconstructing = false
        let result: ImageError? = data.withUnsafeBytes { raw in
            let events = Int32(JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
            guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
                JxlDecoderSetInput(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count) == JXL_DEC_SUCCESS
            else { return .badImageData(reason: "JPEG XL: decoder setup failed") }
            JxlDecoderCloseInput(decoder)
            while true {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_JPEG_RECONSTRUCTION:
                    reconstructing = true
                    guard JxlDecoderSetJPEGBuffer(decoder, output, capacity) == JXL_DEC_SUCCESS else {
                        return .badImageData(reason: "JPEG XL: JPEG buffer refused")
                    }
                case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                    written = capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                    let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                    larger.update(from: output, count: written)
                    output.deallocate()
                    output = larger
                    capacity *= 2
                    guard JxlDecoderSetJPEGBuffer(decoder, output + written, capacity - written) == JXL_DEC_SUCCESS
                    else {
                        return .badImageData(reason: "JPEG XL: JPEG buffer refused")
                    }
                case JXL_DEC_FULL_IMAGE:
                    if reconstructing { written = capacity - JxlDecoderReleaseJPEGBuffer(decoder) }
                    return nil
                case JXL_DEC_SUCCESS, JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    // Without reconstruction data libjxl would decode pixels instead: there is no JPEG.
                    return nil
                default:
                    return .badImageData(reason: "JPEG XL: malformed file (reconstructing the JPEG)")
                }
            }
        }
        if let result { throw result }
        return reconstructing ? Data(bytes: output, count: written) : nil
    }
}
