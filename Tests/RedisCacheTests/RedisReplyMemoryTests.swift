import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageRedisCache

/// Reply memory: large values are read into blocks that come back for reuse when their `Data` is gone,
/// within the configured limit, and the values stay valid after the cache that read them is gone.
@Suite struct RedisReplyMemoryTests {
    static func connection(_ port: Int, memory: RedisReplyMemory) throws -> RedisConnection {
        try RedisConnection(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: port), connectTimeout: 10_000,
            readTimeout: 10_000, writeTimeout: 10_000, replyMemory: memory)
    }

    static func value(_ size: Int, seed: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 31) })
    }

    @Test func blocksComeBackWhenValuesAreFreedAndAreReusedByTheNextPipeline() throws {
        let server = try RedisServerProcess()
        let values = (0..<16).map { Self.value(20_000, seed: $0) }
        _ = try server.command(values.indices.map { RedisCommand.make("SET", Data("k\($0)".utf8), values[$0]) })
        let memory = RedisReplyMemory(retainedLimit: 8 << 20)
        let connection = try Self.connection(server.endpoint.port, memory: memory)
        let gets = values.indices.map { RedisCommand.make(["GET", "k\($0)"]) }

        var replies: [RedisReply]? = try connection.run(gets)
        #expect(memory.retainedBytes == 0, "blocks in use are not counted as kept")
        #expect(replies?.compactMap(\.bytes) == values)
        replies = nil
        let kept = memory.retainedBytes
        // Sixteen blocks of the 20 KB class (at most a fifth larger than the value).
        #expect(kept >= 16 * 20_001 && kept <= 16 * 25_000)

        for _ in 0..<5 {
            let again = try connection.run(gets)
            #expect(memory.retainedBytes == 0, "the second pipeline took every kept block")
            #expect(again.compactMap(\.bytes) == values)
        }
        #expect(memory.retainedBytes == kept, "and gave them back without growing")
    }

    @Test func theLimitBoundsWhatIsKeptAndSmallValuesUseMalloc() throws {
        let server = try RedisServerProcess()
        let big = Self.value(100_000, seed: 1)
        _ = try server.command([
            RedisCommand.make("SET", Data("big".utf8), big),
            RedisCommand.make("SET", Data("small".utf8), Self.value(1_000, seed: 2)),
        ])
        let memory = RedisReplyMemory(retainedLimit: 300_000)
        let connection = try Self.connection(server.endpoint.port, memory: memory)
        do {
            let replies = try connection.run((0..<8).map { _ in RedisCommand.make(["GET", "big"]) })
            #expect(replies.allSatisfy { $0.bytes == big })
        }
        // Eight 100 KB blocks came back; two fit the limit, the rest were freed.
        #expect(memory.retainedBytes > 200_000 && memory.retainedBytes <= 300_000)
        let before = memory.retainedBytes
        _ = try connection.run((0..<8).map { _ in RedisCommand.make(["GET", "small"]) })
        #expect(memory.retainedBytes == before, "1 KB strings never touch the pool")
    }

    @Test func valuesOutliveTheCacheAndItsMemory() throws {
        let server = try RedisServerProcess()
        let value = Self.value(50_000, seed: 3)
        var configuration = RedisCacheConfiguration.forTests([server])
        configuration.writePolicy = .writeThrough
        var cache: RedisCache? = RedisCache(configuration: configuration)
        cache?.store(value, extendedData: nil, forKey: "outlives")
        let entry = cache?.entry(forKey: "outlives")
        cache = nil  // the cache, its connections and its reply memory go; the entry's block stays
        #expect(entry?.data == value)
    }
}
