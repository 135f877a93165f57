/// One Redis server: where it is, which logical database, and how to authenticate.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address. Names are resolved with `getaddrinfo` when a connection opens.
    public var host: String
    /// TCP port. 6379 by default.
    public var port: Int
    /// Logical database selected after connecting (`SELECT`). 0 by default.
    public var database: Int
    /// ACL user name (Redis 6+), sent as `AUTH user password`. nil: `AUTH password` or no AUTH.
    public var user: String?
    /// Password. nil: no `AUTH`.
    public var password: String?

    /// Redis's default port.
    public static let defaultPort = 6379

    /// An endpoint.
    public init(
        host: String, port: Int = RedisEndpoint.defaultPort, database: Int = 0,
        user: String? = nil, password: String? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// `host:port/db`, without credentials, for logs and `webimage cache info`.
    public var description: String { "\(host):\(port)/\(database)" }
}
