import WebImage

/// Picks the output format: a format in the URL (`f:` or the extension) wins; otherwise the `Accept`
/// header picks AVIF (when an AVIF encoder is registered, and for stills: animated AVIF is not encoded),
/// then WebP; otherwise the source's own format, PNG instead of JPEG when the image has alpha.
struct FormatNegotiation: Sendable {
    /// What the client accepts, reduced to what the choice depends on (part of the result cache key).
    struct Preference: Sendable, Hashable {
        var avif: Bool
        var webp: Bool
        /// Short text for cache keys.
        var key: String { (avif ? "avif+" : "") + (webp ? "webp" : "") }
    }

    let negotiatesWebP: Bool
    let negotiatesAVIF: Bool
    let coders: ImageCodersManager

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
        return Preference(avif: negotiatesAVIF && accepted.contains("image/avif") && coders.canEncode(to: .avif),
                          webp: negotiatesWebP && accepted.contains("image/webp") && coders.canEncode(to: .webp))
    }

    /// The format to encode `image` (decoded from a `sourceFormat` file) in.
    func outputFormat(explicit: ImageFormat?, preference: Preference, image: Image, sourceFormat: ImageFormat) -> ImageFormat {
        if let explicit { return explicit }
        if preference.avif && !image.isAnimated { return .avif }
        if preference.webp { return .webp }
        let hasAlpha = image.pixels.layout.hasAlpha
        var format = coders.canEncode(to: sourceFormat) ? sourceFormat : (hasAlpha ? .png : .jpeg)
        if format == .jpeg && hasAlpha { format = .png }
        return format
    }
}
