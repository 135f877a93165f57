import Foundation
import WebImage

/// A processing URL taken apart, in imgproxy's two forms:
/// `/{signature}/{options}/plain/{percent-encoded source URL}@{extension}` and
/// `/{signature}/{options}/{base64url source URL, may be split by /}.{extension}`.
struct ImageURLPath: Sendable, Equatable {
    /// The signature segment.
    var signature: Substring
    /// What the signature signs: everything after it, from its `/` on (query string included).
    var signedPart: Substring
    /// The processing option segments (`rs:fill:300:200`, `q:80`), in order.
    var optionSegments: [Substring]
    /// The source image's URL.
    var sourceURL: URL
    /// The output format the extension asks for, nil when there is none.
    var extensionFormat: ImageFormat?

    /// Why a path is not a processing URL (the server answers 404, as imgproxy does).
    struct Malformed: Error, Equatable {
        let reason: String
    }

    /// How a deployment writes its URLs: imgproxy's settings that change the reading of a path.
    struct Conventions: Sendable, Equatable {
        /// The separator of an option's arguments (`IMGPROXY_ARGUMENTS_SEPARATOR`), `:` by default.
        var argumentSeparator: Character = ":"
        /// Prepended to every source URL that does not already start with it (`IMGPROXY_BASE_URL`), so
        /// URLs may name sources relative to it.
        var baseURL = ""
        /// Rewrites of source URLs (`IMGPROXY_URL_REPLACEMENTS`), applied before ``baseURL``.
        var replacements: [URLReplacement] = []
        /// The last segment of a base64 source is a file name for the reader's eyes, not part of the URL
        /// (`IMGPROXY_BASE64_URL_INCLUDES_FILENAME`).
        var base64IncludesFilename = false
        /// Source URL schemes the server fetches: http and https, and `local` with a local file root.
        var schemes: Set<String> = ["http", "https"]
        /// What ends the file name or object key of a `local://` or `s3://` source and starts its query
        /// (`IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`, `?` by default; empty: none, `?` is part of the name). The
        /// query of an `s3://` source is the object's version; a local source's is ignored.
        var storageQuerySeparator = "?"

        /// `written`, the source URL as the path gives it, after the replacements and the base URL.
        func preprocessed(_ written: String) -> String {
            let replaced = replacements.reduce(written) { $1.apply(to: $0) }
            return baseURL.isEmpty || replaced.hasPrefix(baseURL) ? replaced : baseURL + replaced
        }
    }

    /// Parses `target`, the request target as sent (path and query, percent-encoding untouched).
    init(_ target: String, conventions: Conventions = Conventions()) throws(Malformed) {
        guard target.hasPrefix("/") else { throw Malformed(reason: "the path must start with /") }
        let afterSlash = target.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw Malformed(reason: "no source URL") }
        signature = afterSlash[..<slash]
        signedPart = afterSlash[slash...]
        guard !signature.isEmpty else { throw Malformed(reason: "empty signature") }

        let segments = signedPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        // Options all have arguments after the separator; base64url and "plain" have none.
        let separator = conventions.argumentSeparator
        let optionCount = segments.prefix { $0.contains(separator) }.count
        optionSegments = segments.prefix(optionCount).map { segment in
            separator == ":"
                ? segment
                : Substring(
                    segment.split(separator: separator, omittingEmptySubsequences: false)
                        .joined(separator: ":"))
        }
        let rest = segments.dropFirst(optionCount)
        guard let first = rest.first, !first.isEmpty else { throw Malformed(reason: "no source URL") }
        if first == "plain" {
            (sourceURL, extensionFormat) = try Self.plainSource(
                rest.dropFirst().joined(separator: "/"),
                conventions: conventions)
        } else {
            let parts = conventions.base64IncludesFilename && rest.count > 1 ? rest.dropLast() : rest
            (sourceURL, extensionFormat) = try Self.encodedSource(parts.joined(), conventions: conventions)
        }
    }

    private static func plainSource(_ text: String, conventions: Conventions) throws(Malformed) -> (URL, ImageFormat?) {
        var encoded = Substring(text)
        var format: ImageFormat?
        if let at = encoded.lastIndex(of: "@") {
            // A query string after the extension is not part of it (imgproxy ignores it).
            let afterAt = encoded[encoded.index(after: at)...]
            format = try extensionFormat(afterAt.prefix { $0 != "?" })
            encoded = encoded[..<at]
        }
        guard let decoded = encoded.removingPercentEncoding else { throw Malformed(reason: "bad percent-encoding") }
        return (try sourceURL(conventions.preprocessed(decoded), conventions: conventions), format)
    }

    private static func encodedSource(_ text: String, conventions: Conventions) throws(Malformed) -> (URL, ImageFormat?)
    {
        var encoded = Substring(text)
        var format: ImageFormat?
        if let dot = encoded.lastIndex(of: ".") {
            format = try extensionFormat(encoded[encoded.index(after: dot)...])
            encoded = encoded[..<dot]
        }
        guard let bytes = Base64URL.decode(encoded) else { throw Malformed(reason: "bad base64 source URL") }
        return (
            try sourceURL(conventions.preprocessed(String(decoding: bytes, as: UTF8.self)), conventions: conventions),
            format
        )
    }

    private static func extensionFormat(_ text: Substring) throws(Malformed) -> ImageFormat? {
        if text.isEmpty { return nil }
        let format = ImageFormat.fromFileExtension(String(text))
        guard format != .undefined else { throw Malformed(reason: "unknown extension \(text)") }
        return format
    }

    private static func sourceURL(_ written: String, conventions: Conventions) throws(Malformed) -> URL {
        let schemes = conventions.schemes
        var text = storageURL(written, separator: conventions.storageQuerySeparator)
        // Proxies and browsers collapse the `//` of a plain URL in a path: `http:/host` means `http://host`.
        for scheme in ["http:/", "https:/"]
        where text.lowercased().hasPrefix(scheme) && !text.dropFirst(scheme.count).hasPrefix("/") {
            text.insert("/", at: text.index(text.startIndex, offsetBy: scheme.count))
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), schemes.contains(scheme) else {
            throw Malformed(reason: "the source must be a URL of " + schemes.sorted().joined(separator: ", "))
        }
        // A local source names a path under the root (`local:///images/a.jpg`); the others, a host.
        guard scheme == "local" ? !url.path.isEmpty : url.host?.isEmpty == false else {
            throw Malformed(reason: scheme == "local" ? "a local source needs a path" : "the source URL has no host")
        }
        return url
    }

    /// A `local://` or `s3://` source as the loaders read it, cut at `separator` as imgproxy cuts it: the
    /// name or key keeps any `?` and `#` before the separator (escaped, so they stay in the path), and the
    /// query after it is an S3 object's version (`?versionId=`) or, for a local file, dropped. Other
    /// sources are returned as written.
    static func storageURL(_ written: String, separator: String) -> String {
        guard let schemeEnd = written.range(of: "://") else { return written }
        let scheme = written[..<schemeEnd.lowerBound].lowercased()
        guard scheme == FileLoader.localScheme || scheme == S3Loader.scheme else { return written }
        var name = written[schemeEnd.upperBound...]
        var query: Substring = ""
        if !separator.isEmpty, let cut = name.range(of: separator) {
            query = name[cut.upperBound...]
            name = name[..<cut.lowerBound]
        }
        var url =
            String(written[..<schemeEnd.upperBound])
            + name.replacingOccurrences(of: "?", with: "%3F").replacingOccurrences(of: "#", with: "%23")
        if scheme == S3Loader.scheme, !query.isEmpty {
            url +=
                "?versionId="
                + (query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"]))
                    ?? "")
        }
        return url
    }
}
