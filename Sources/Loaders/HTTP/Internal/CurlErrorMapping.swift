import CCurl
import WebImageCore

/// Maps a libcurl result to the framework's error, given what the transfer's callbacks recorded.
enum CurlErrorMapping {
    static func error(for code: CURLcode, message: String, refusedAddress: String?) -> ImageError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The first URL's scheme was checked before sending, so this is a redirect elsewhere.
            return .requestRefused(reason: "redirect to a scheme other than http or https (\(message))")
        case CURLE_COULDNT_CONNECT where refusedAddress != nil:
            return .requestRefused(reason: "connecting to the non-public address \(refusedAddress!) is not allowed")
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: 0)
        default:
            return .network(code: Int(code.rawValue), message: message)
        }
    }
}
