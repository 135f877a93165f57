internal import CWebP
import Foundation
import WebImageCore

/// Adds metadata chunks to an encoded WebP with libwebp's mux API, which also writes the VP8X header
/// (and its ICC flag) that a simple-format file lacks.
enum WebPChunkWriter {
    /// `webp` with an ICCP chunk holding `iccProfile` (stills and animations alike).
    static func adding(iccProfile: Data, to webp: Data) throws(ImageError) -> Data {
        // The mux reads `webp` and `iccProfile` only inside these closures, and copies both
        // (copy_data = 1), so no pointer outlives its buffer; `assembled` is libwebp's and freed below.
        var assembled = WebPData()
        let status = webp.withUnsafeBytes { image in
            iccProfile.withUnsafeBytes { profile -> WebPMuxError in
                var imageData = WebPData(bytes: image.bindMemory(to: UInt8.self).baseAddress, size: image.count)
                guard let mux = WebPMuxCreate(&imageData, 1) else { return WEBP_MUX_BAD_DATA }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: profile.bindMemory(to: UInt8.self).baseAddress, size: profile.count)
                let set = WebPMuxSetChunk(mux, "ICCP", &chunk, 1)
                guard set == WEBP_MUX_OK else { return set }
                return WebPMuxAssemble(mux, &assembled)
            }
        }
        defer { WebPDataClear(&assembled) }
        guard status == WEBP_MUX_OK, let bytes = assembled.bytes else {
            throw .badImageData(reason: "WebP: cannot add the ICC profile: \(WebPStatus.words(status))")
        }
        return Data(bytes: bytes, count: assembled.size)
    }
}
