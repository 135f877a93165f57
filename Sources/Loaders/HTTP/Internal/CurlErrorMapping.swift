internal import CCurl
import WebImageCore

/// Maps a libcurl result to the framework's error, given what the transfer's callbacks recorded.
enum CurlErrorMapping {
    /// `lastStatus` is the status of the last response head received (0 when none came); `inHead`
    /// whether the transfer ended before any body byte; `headerLimit` the loader's head size limit,
    /// reported when libcurl's own header limit stopped it.
    static func error(
        for code: CURLcode, message: String, refusedAddress: String?, lastStatus: Int,
        inHead: Bool, headerLimit: Int
    ) -> ImageError {
        let status = lastStatus > 0 ? lastStatus : nil
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_UNSUPPORTED_PROTOCOL where (300..<400).contains(lastStatus):
            // The first URL's scheme was checked before sending, so after a redirect this is the
            // redirect's scheme.
            return .requestRefused(reason: "redirect to a scheme other than http or https (\(message))")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY:
            // No redirect: the reply itself is not HTTP ("Received HTTP/0.9 when not allowed", a
            // status line libcurl cannot parse).
            return .httpLoader(.malformedResponse, message: message, statusCode: status)
        case CURLE_OUT_OF_MEMORY where inHead:
            // libcurl refuses a single header line over its own cap (100 KB) this way, before our
            // header callback sees it, with no more detail than "Out of memory". A real allocation
            // failure while reading a head of at most our limit is the unlikely reading.
            return .httpLoader(.headerTooLarge(limit: headerLimit), statusCode: status)
        case CURLE_COULDNT_CONNECT where refusedAddress != nil:
            return .requestRefused(reason: "connecting to the non-public address \(refusedAddress!) is not allowed")
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: 0)
        default:
            return .httpLoader(.network(curlCode: Int(code.rawValue)), message: message, statusCode: status)
        }
    }
}
