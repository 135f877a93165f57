import Foundation
import WebImageCore
import WebImageTestSupport

@testable import WebImageRedisCache

/// What the Redis tier's tests ask of the shared `RedisServerProcess` (WebImageTestSupport) through the
/// tier's own connection type.
extension RedisServerProcess {
    /// The server as the Redis tier names a node.
    var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: port) }

    /// Runs one command on a fresh connection, for checks from outside the cache.
    func command(_ words: [String]) throws -> RedisReply {
        try command([words.map { Data($0.utf8) }])[0]
    }

    func command(_ commands: [[Data]], password: String? = nil) throws -> [RedisReply] {
        var endpoint = endpoint
        endpoint.password = password
        let connection = try RedisConnection(
            endpoint: endpoint, connectTimeout: 5000, readTimeout: 5000, writeTimeout: 5000)
        return try connection.run(commands)
    }
}

extension RedisCacheConfiguration {
    /// A configuration for test servers: generous timeouts (a loaded machine), short backoff (recovery
    /// tests), write-through unless a test says otherwise.
    static func forTests(
        _ servers: [RedisServerProcess], policy: WritePolicy = .writeThrough
    ) -> RedisCacheConfiguration {
        var configuration = try! RedisCacheConfiguration(nodes: servers.map(\.endpoint))
        configuration.namespace = "test-\(UUID().uuidString.prefix(8))"
        configuration.connectTimeout = .milliseconds(5000)
        configuration.readTimeout = .milliseconds(5000)
        configuration.writeTimeout = .milliseconds(5000)
        configuration.poolWaitTimeout = .milliseconds(5000)
        configuration.reconnectBackoffInitial = .milliseconds(20)
        configuration.reconnectBackoffMax = .milliseconds(200)
        configuration.writePolicy = policy
        return configuration
    }
}
