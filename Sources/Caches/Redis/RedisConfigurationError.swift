/// Why a ``RedisCacheConfiguration`` could not be made.
public enum RedisConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The string is not a `redis://` URL with a host (the reason says which part is wrong).
    case invalidURL(String, reason: String)
    /// A `rediss://` (TLS) URL: Debian's hiredis 0.14 has no TLS support (`hiredis_ssl` arrived in 1.0).
    case tlsUnavailable(String)
    /// No node was given.
    case noNodes

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid Redis URL \(Self.redacted(url)): \(reason)"
        case .tlsUnavailable(let url):
            "\(Self.redacted(url)): TLS (rediss://) needs hiredis 1.0 with hiredis_ssl; this build links hiredis 0.14 without it"
        case .noNodes: "no Redis node configured"
        }
    }

    /// `url` with the user information replaced, so passwords stay out of logs.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://") else { return url }
        guard scheme.upperBound <= at else { return url }
        return String(url[..<scheme.upperBound]) + "***" + String(url[at...])
    }
}
