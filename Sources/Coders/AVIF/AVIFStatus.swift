internal import CAVIF
import WebImageCore

/// libavif's results in words, for errors that say what failed and why.
enum AVIFStatus {
    /// The error for libavif answering `result` while doing `step`, with the decoder's or encoder's
    /// diagnostic text when it left one.
    static func error(_ result: avifResult, _ step: String, diagnostics: String? = nil) -> ImageError {
        let words = String(cString: avifResultToString(result))
        let detail = diagnostics.map { $0.isEmpty ? "" : " (\($0))" } ?? ""
        return .badImageData(reason: "AVIF: \(step): \(words)\(detail)")
    }

    /// The text libavif wrote into `diag`, empty when none.
    static func text(of diag: inout avifDiagnostics) -> String {
        withUnsafeBytes(of: &diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
