import Testing
import WebImageRedisCache

@Suite("Redis cache configuration")
struct RedisCacheConfigurationTests {
    @Test func urlsCarryHostPortDatabaseAndCredentials() throws {
        let plain = try RedisEndpoint(url: "redis://cache.internal")
        #expect(plain == RedisEndpoint(host: "cache.internal", port: 6379, database: 0))
        let full = try RedisEndpoint(url: "redis://fleet:p%40ss@10.0.0.7:6380/4")
        #expect(full == RedisEndpoint(host: "10.0.0.7", port: 6380, database: 4, user: "fleet", password: "p@ss"))
        let passwordOnly = try RedisEndpoint(url: "redis://:secret@127.0.0.1:7000")
        #expect(passwordOnly.user == nil && passwordOnly.password == "secret" && passwordOnly.port == 7000)
        let ipv6 = try RedisEndpoint(url: "redis://[::1]:6379/0")
        #expect(ipv6.host == "::1")
        #expect(full.description == "10.0.0.7:6380/4")
    }

    @Test func severalURLsMakeShards() throws {
        let configuration = try RedisCacheConfiguration(url: "redis://a:1, redis://b:2,redis://c:3")
        #expect(configuration.nodes.map(\.host) == ["a", "b", "c"])
        #expect(configuration.nodes.map(\.port) == [1, 2, 3])
        #expect(configuration.keyPrefix == "webimage:1:")
    }

    @Test func tlsURLsAreRefusedWithATypedError() {
        #expect(throws: RedisConfigurationError.tlsUnavailable("rediss://:pw@cache:6380")) {
            try RedisCacheConfiguration(url: "rediss://:pw@cache:6380")
        }
        // The message names the reason and hides the password.
        let message = RedisConfigurationError.tlsUnavailable("rediss://:pw@cache:6380").description
        #expect(message.contains("hiredis") && !message.contains("pw"))
    }

    @Test func malformedURLsAreRefused() {
        for url in [
            "http://cache:6379", "redis://", "redis://cache:6379/db", "redis://cache:6379/-1", "cache:6379",
            "redis://cache:0",
        ] {
            #expect(throws: RedisConfigurationError.self, "\(url)") { try RedisCacheConfiguration(url: url) }
        }
        #expect(throws: RedisConfigurationError.noNodes) { try RedisCacheConfiguration(url: " ") }
    }
}
