import WebImage

/// Picks the output format as imgproxy does. Without a format in the URL (`f:` or the extension): a format
/// the client accepts and the server is told to prefer (`IMGPROXY_AUTO_JXL`, `_AVIF`, `_WEBP`, in that
/// order; JPEG XL and AVIF for stills only), else the source's format when it is one of
/// `IMGPROXY_PREFERRED_FORMATS`, else the first preferred format that keeps the image's animation and
/// alpha (the first preferred format when none does). With a format in the URL, `IMGPROXY_ENFORCE_JXL`,
/// `_AVIF` and `_WEBP` still win for clients that accept them.
struct FormatNegotiation: Sendable {
    /// What the client accepts, reduced to what the choice depends on (part of the result cache key).
    struct Preference: Sendable, Hashable {
        var jxl = false
        var avif = false
        var webp = false
        /// Whether the choice overrides a format in the URL (the `ENFORCE` variables).
        var enforced = false
        /// Short text for cache keys.
        var key: String {
            (enforced ? "!" : "") + (jxl ? "jxl+" : "") + (avif ? "avif+" : "") + (webp ? "webp" : "")
        }
    }

    /// The `AUTO` and `ENFORCE` switches, by format.
    struct Switches: Sendable, Equatable {
        var auto = false
        var enforce = false
        var any: Bool { auto || enforce }
    }

    var webp = Switches()
    var avif = Switches()
    var jxl = Switches()
    /// `IMGPROXY_PREFERRED_FORMATS`, kept to those an encoder is registered for.
    var preferred: [ImageFormat] = FormatNegotiation.defaultPreferred
    let coders: ImageCodersManager

    /// imgproxy's default preferred formats.
    static let defaultPreferred: [ImageFormat] = [.jpeg, .png, .gif]

    init(configuration: ServerConfiguration, coders: ImageCodersManager) {
        self.coders = coders
        webp = Switches(auto: configuration.negotiatesWebP, enforce: configuration.enforcesWebP)
        avif = Switches(auto: configuration.negotiatesAVIF, enforce: configuration.enforcesAVIF)
        jxl = Switches(auto: configuration.negotiatesJXL, enforce: configuration.enforcesJXL)
        let encodable = configuration.preferredFormats.filter { coders.canEncode(to: $0) }
        preferred = encodable.isEmpty ? [.jpeg] : encodable
    }

    /// Whether an answer may depend on `Accept` (then it says `Vary: Accept`).
    var dependsOnAccept: Bool { webp.any || avif.any || jxl.any }

    /// Reads an `Accept` header: a type counts when listed with a quality above 0.
    func preference(accept: String?) -> Preference {
        var accepted: Set<Substring> = []
        for item in (accept ?? "").split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = parts.first?.lowercased() else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0].lowercased() == "q" && Double(pair[1]) == 0
            }
            if !refused { accepted.insert(Substring(type)) }
        }
        func wants(_ switches: Switches, _ type: Substring, _ format: ImageFormat) -> Bool {
            switches.any && accepted.contains(type) && coders.canEncode(to: format)
        }
        let jxlWanted = wants(jxl, "image/jxl", .jpegXL), avifWanted = wants(avif, "image/avif", .avif)
        let webpWanted = wants(webp, "image/webp", .webp)
        return Preference(
            jxl: jxlWanted, avif: avifWanted, webp: webpWanted,
            enforced: (jxlWanted && jxl.enforce) || (avifWanted && avif.enforce) || (webpWanted && webp.enforce))
    }

    /// The format to encode `image` (decoded from a `sourceFormat` file) in.
    func outputFormat(
        explicit: ImageFormat?, preference: Preference, image: Image, sourceFormat: ImageFormat
    ) -> ImageFormat {
        let animated = image.isAnimated
        if let explicit {
            if preference.jxl && jxl.enforce && !animated { return .jpegXL }
            if preference.avif && avif.enforce && !animated { return .avif }
            if preference.webp && webp.enforce { return .webp }
            return explicit
        }
        if preference.jxl && !animated { return .jpegXL }
        if preference.avif && !animated { return .avif }
        if preference.webp { return .webp }
        if preferred.contains(sourceFormat) { return sourceFormat }
        let hasAlpha = image.pixels.layout.hasAlpha
        return preferred.first { format in
            (!animated || Self.keepsAnimation(format)) && (!hasAlpha || Self.keepsAlpha(format))
        } ?? preferred[0]
    }

    /// Formats whose encoders write animations.
    static func keepsAnimation(_ format: ImageFormat) -> Bool { format == .gif || format == .webp }

    /// Formats that store alpha, as imgproxy counts them when it picks a preferred format: JPEG and BMP
    /// do not. Our BMP encoder can write alpha (a V4 header with an alpha mask), but many BMP readers
    /// ignore it, and imgproxy passes BMP over for a transparent image: so do we, and `f:bmp` still
    /// keeps the alpha.
    static func keepsAlpha(_ format: ImageFormat) -> Bool { format != .jpeg && format != .bmp }
}
