internal import CWebP
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

    /// libwebp's encoder error in words.
    static func words(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_OK: "no error"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory writing the bitstream"
        case VP8_ENC_ERROR_NULL_PARAMETER: "missing parameter"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad picture dimension"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "first partition over 512 KB"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition over 16 MB"
        case VP8_ENC_ERROR_BAD_WRITE: "write failed"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file too big"
        case VP8_ENC_ERROR_USER_ABORT: "user abort"
        default: "unknown encoder error \(error.rawValue)"
        }
    }

    /// libwebp's mux error in words.
    static func words(_ error: WebPMuxError) -> String {
        switch error {
        case WEBP_MUX_OK: "no error"
        case WEBP_MUX_NOT_FOUND: "chunk not found"
        case WEBP_MUX_INVALID_ARGUMENT: "invalid argument"
        case WEBP_MUX_BAD_DATA: "bad data"
        case WEBP_MUX_MEMORY_ERROR: "out of memory"
        case WEBP_MUX_NOT_ENOUGH_DATA: "not enough data"
        default: "unknown mux error \(error.rawValue)"
        }
    }

    /// The error for libwebp answering `status` while doing `step` ("bad header", "decoding failed").
    static func error(_ status: VP8StatusCode, _ step: String) -> ImageError {
        .badImageData(reason: "WebP: \(step): \(words(status))")
    }
}
