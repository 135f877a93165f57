import Foundation

/// The client hints a browser sends about the image it will show (`Sec-CH-DPR`/`DPR`,
/// `Sec-CH-Width`/`Width`), read as `dpr` and `width` defaults with `IMGPROXY_ENABLE_CLIENT_HINTS`, as
/// imgproxy reads them: a DPR above 0 and at most 8, and a width in physical pixels, divided by the DPR.
struct ClientHints: Sendable, Equatable {
    var dpr: String?
    var width: String?

    init(dpr: String? = nil, width: String? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// The request headers the hints come from, for `Vary`.
    static let headerNames = ["Sec-CH-DPR", "DPR", "Sec-CH-Width", "Width"]

    /// imgproxy's bound on a hinted DPR.
    static let maximumDPR = 8.0

    /// The option segments the hints stand for (`dpr:2`, `w:300`); unreadable hints are ignored.
    var segments: [Substring] {
        var ratio = 1.0
        var segments: [Substring] = []
        if let text = dpr?.trimmingCharacters(in: .whitespaces), let value = Double(text), value > 0,
            value <= Self.maximumDPR
        {
            ratio = value
            segments.append(Substring("dpr:\(text)"))
        }
        if let text = width?.trimmingCharacters(in: .whitespaces), let value = Int(text), value > 0 {
            segments.append(Substring("w:\(Int((Double(value) / ratio).rounded()))"))
        }
        return segments
    }
}
