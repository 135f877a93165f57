import Foundation
import WebImageCore

/// Turns a caller's URL, options and context into a ``PreparedRequest``: default headers, user
/// headers, conditional-request validators, then the request modifier (which may refuse).
struct RequestBuilder: Sendable {
    let configuration: HTTPLoaderConfiguration

    func prepare(url: URL, options: ImageOptions, context: ImageContext) -> Result<PreparedRequest, ImageError> {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host,
            !host.isEmpty
        else {
            return .failure(.invalidURL(url.absoluteString))
        }
        var headers: [String: String] = [
            "User-Agent": configuration.userAgent,
            "Accept": acceptHeader(),
        ]
        // With decoding on, libcurl writes Accept-Encoding itself from the codings it decodes.
        if !configuration.contentDecoding.isEnabled { headers["Accept-Encoding"] = "identity" }
        for (name, value) in configuration.headers { set(&headers, name, value) }
        if options.contains(.refreshCached), let validators = context.cacheValidators {
            if let etag = validators.etag { set(&headers, "If-None-Match", etag) }
            if let lastModified = validators.lastModified { set(&headers, "If-Modified-Since", lastModified) }
        }
        var request = ImageRequest(url: url, method: "GET", headers: headers, timeout: nil)
        if let modifier = context.requestModifier ?? configuration.requestModifier {
            guard let modified = modifier.modify(request) else {
                return .failure(.requestRefused(reason: "the request modifier refused \(url.absoluteString)"))
            }
            request = modified
            guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                request.url.host?.isEmpty == false
            else {
                return .failure(.invalidURL(request.url.absoluteString))
            }
        }
        let sentValidators = request.headers.keys.contains {
            let name = $0.lowercased()
            return name == "if-none-match" || name == "if-modified-since"
        }
        let finalURL = request.url
        let port = finalURL.port ?? (finalURL.scheme?.lowercased() == "https" ? 443 : 80)
        let lines = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var prepared = PreparedRequest(
            url: finalURL, method: request.method.uppercased(), headerLines: lines,
            timeout: request.timeout ?? configuration.timeout,
            handlesCookies: options.contains(.handleCookies),
            allowsInvalidCertificates: options.contains(.allowInvalidSSLCertificates),
            sentValidators: sentValidators,
            hostKey: "\(finalURL.scheme!.lowercased())://\(finalURL.host!.lowercased()):\(port)")
        prepared.logger = context.logger
        return .success(prepared)
    }

    /// "image/png,image/jpeg,...,*/*;q=0.8": the MIME types of the registered coders' formats first,
    /// so a server that negotiates sends something we decode (WebP only when a WebP coder is there).
    func acceptHeader() -> String {
        var seen = Set<String>()
        let types = configuration.coders.decodableFormats.compactMap(\.mimeType).filter { seen.insert($0).inserted }
        return (types + ["*/*;q=0.8"]).joined(separator: ",")
    }

    /// Sets `name` replacing any spelling of it already there (header names are case-insensitive).
    private func set(_ headers: inout [String: String], _ name: String, _ value: String) {
        if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            headers.removeValue(forKey: existing)
        }
        headers[name] = value
    }
}
