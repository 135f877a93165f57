internal import CCurl
import WebImageCore

extension CurlErrorMapping {
    /// A body whose declared content coding does not decode is bad data from the server (as a corrupt
    /// image is), not a network failure; nil for other results.
    static func contentEncodingError(for code: CURLcode, message: String) -> ImageError? {
        guard code == CURLE_BAD_CONTENT_ENCODING else { return nil }
        return .badImageData(reason: "the body does not decode by its Content-Encoding (\(message))")
    }
}
