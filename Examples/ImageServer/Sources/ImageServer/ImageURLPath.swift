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

    /// Parses `target`, the request target as sent (path and query, percent-encoding untouched).
    init(_ target: String) throws(Malformed) {
        guard target.hasPrefix("/") else { throw Malformed(reason: "the path must start with /") }
        let afterSlash = target.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw Malformed(reason: "no source URL") }
        signature = afterSlash[..<slash]
        signedPart = afterSlash[slash...]
        guard !signature.isEmpty else { throw Malformed(reason: "empty signature") }

        let segments = signedPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        // Options all have arguments after a colon; base64url and "plain" have none.
        let optionCount = segments.prefix { $0.contains(":") }.count
        optionSegments = Array(segments.prefix(optionCount))
        let rest = segments.dropFirst(optionCount)
        guard let first = rest.first, !first.isEmpty else { throw Malformed(reason: "no source URL") }
        if first == "plain" {
            (sourceURL, extensionFormat) = try Self.plainSource(rest.dropFirst().joined(separator: "/"))
        } else {
            (sourceURL, extensionFormat) = try Self.encodedSource(rest.joined())
        }
    }

    private static func plainSource(_ text: String) throws(Malformed) -> (URL, ImageFormat?) {
        var encoded = Substring(text)
        var format: ImageFormat?
        if let at = encoded.lastIndex(of: "@") {
            format = try extensionFormat(encoded[encoded.index(after: at)...])
            encoded = encoded[..<at]
        }
        guard let decoded = encoded.removingPercentEncoding else { throw Malformed(reason: "bad percent-encoding") }
        return (try sourceURL(decoded), format)
    }

    private static func encodedSource(_ text: String) throws(Malformed) -> (URL, ImageFormat?) {
        var encoded = Substring(text)
        var format: ImageFormat?
        if let dot = encoded.lastIndex(of: ".") {
            format = try extensionFormat(encoded[encoded.index(after: dot)...])
            encoded = encoded[..<dot]
        }
        guard let bytes = Base64URL.decode(encoded) else { throw Malformed(reason: "bad base64 source URL") }
        return (try sourceURL(String(decoding: bytes, as: UTF8.self)), format)
    }

    private static func extensionFormat(_ text: Substring) throws(Malformed) -> ImageFormat? {
        if text.isEmpty { return nil }
        let format = ImageFormat.fromFileExtension(String(text))
        guard format != .undefined else { throw Malformed(reason: "unknown extension \(text)") }
        return format
    }

    private static func sourceURL(_ text: String) throws(Malformed) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else {
            throw Malformed(reason: "the source must be an http or https URL")
        }
        return url
    }
}
