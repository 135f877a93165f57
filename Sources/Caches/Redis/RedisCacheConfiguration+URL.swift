import Foundation

extension RedisCacheConfiguration {
    /// A configuration from one URL, `redis://[[user]:password@]host[:port][/db]`, or several separated
    /// by commas or spaces (one per shard), with every other value at its default. This is the form an
    /// environment variable carries (`WEBIMAGE_REDIS_URL` for the `webimage` command).
    ///
    /// - Throws: ``RedisConfigurationError/tlsUnavailable(_:)`` for `rediss://` (no TLS in hiredis 0.14),
    ///   ``RedisConfigurationError/invalidURL(_:reason:)`` for anything else that is not a Redis URL,
    ///   ``RedisConfigurationError/noNodes`` for an empty string.
    public init(url: String) throws(RedisConfigurationError) {
        let parts = url.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }).map(String.init)
        try self.init(urls: parts)
    }

    /// A configuration with one node per URL (see ``init(url:)``).
    public init(urls: [String]) throws(RedisConfigurationError) {
        var nodes: [RedisEndpoint] = []
        for url in urls { nodes.append(try RedisEndpoint(url: url)) }
        try self.init(nodes: nodes)
    }
}

extension RedisEndpoint {
    /// The endpoint of `redis://[[user]:password@]host[:port][/db]`. User and password are percent-decoded.
    public init(url string: String) throws(RedisConfigurationError) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL(string, reason: "not a URL")
        }
        switch scheme {
        case "redis": break
        case "rediss": throw .tlsUnavailable(string)
        default: throw .invalidURL(string, reason: "scheme must be redis://")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(string, reason: "no host") }
        let port = components.port ?? RedisEndpoint.defaultPort
        guard (1...65535).contains(port) else { throw .invalidURL(string, reason: "port out of range") }
        var database = 0
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else {
                throw .invalidURL(string, reason: "the path must be a database number")
            }
            database = number
        }
        let user = components.percentEncodedUser.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        // IPv6 literals come back with their brackets; hiredis wants the bare address.
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(host: bareHost, port: port, database: database, user: user, password: password)
    }
}
