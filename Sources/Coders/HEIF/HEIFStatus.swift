internal import CHEIF
import WebImageCore

/// libheif's errors as ours.
enum HEIFStatus {
    /// Whether `error` is libheif's success.
    static func ok(_ error: heif_error) -> Bool { error.code == heif_error_Ok }

    /// libheif's message for `error` (never nil, its header promises).
    static func message(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
    }

    /// Throws `.badImageData` saying what failed at `step` unless `error` is success.
    static func check(_ error: heif_error, _ step: String) throws(ImageError) {
        guard !ok(error) else { return }
        throw .badImageData(reason: "HEIF: \(step): \(message(error))")
    }

    /// libheif's plugins (libde265, x265, dav1d, aom) registered once per process; `heif_init` counts
    /// its calls, and this one is never undone, so the plugins stay for the process's life.
    static let initialized: Bool = {
        HEIFStatus.ok(heif_init(nil))
    }()
}
