import CWebP
import WebImageCore

/// libwebp's status codes in words, for errors that say what happened.
enum WebPStatus {
    /// `status` as libwebp's documentation names it ("not enough data", "bitstream error", ...).
    static func words(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: "no error"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "user abort"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data"
        default: "unknown status \(status.rawValue)"
        }
    }

    /// The error for libwebp answering `status` while doing `step` ("bad header", "decoding failed").
    static func error(_ status: VP8StatusCode, _ step: String) -> ImageError {
        .badImageData(reason: "WebP: \(step): \(words(status))")
    }
}
