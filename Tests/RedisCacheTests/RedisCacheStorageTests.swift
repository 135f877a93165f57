import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageRedisCache

/// `RedisCache` as a storage, against a real redis-server on loopback.
@Suite("Redis cache storage")
struct RedisCacheStorageTests {
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed })
    }

    @Test(arguments: RedisCacheConfiguration.WritePolicy.allCases)
    func storedBytesAndValidatorsComeBack(policy: RedisCacheConfiguration.WritePolicy) throws {
        let server = try RedisServerProcess()
        let cache = RedisCache(configuration: .forTests([server], policy: policy))
        let validators = try JSONEncoder().encode(
            CacheValidators(etag: "\"v7\"", lastModified: "Mon, 02 Jan 2026 10:00:00 GMT"))
        let image = Self.bytes(20_000, seed: 3)
        try cache.setData(image, extendedData: validators, forKey: "https://example.com/a.png")
        try cache.setData(Self.bytes(10, seed: 9), forKey: "no-validators")
        #expect(cache.waitForPendingWrites())

        #expect(try cache.data(forKey: "https://example.com/a.png") == image)
        #expect(cache.extendedData(forKey: "https://example.com/a.png") == validators)
        #expect(
            cache.entry(forKey: "https://example.com/a.png") == RedisCacheEntry(data: image, extendedData: validators))
        #expect(cache.entry(forKey: "no-validators")?.extendedData == nil)
        #expect(cache.containsData(forKey: "no-validators"))
        #expect(try cache.data(forKey: "never stored") == nil)

        try cache.setExtendedData(nil, forKey: "https://example.com/a.png")
        #expect(cache.waitForPendingWrites())
        #expect(cache.entry(forKey: "https://example.com/a.png") == RedisCacheEntry(data: image, extendedData: nil))

        // The key carries the namespace and version, so fleets and layouts can share one Redis.
        let raw = try server.command(["EXISTS", cache.redisKey(forKey: "no-validators")])
        #expect(raw == .integer(1))
        #expect(cache.totalCount == 2)
        #expect(cache.totalSize == 20_000 + 10 + 2 * RedisValueEnvelope.headerSize)
        try cache.removeData(forKey: "no-validators")
        #expect(!cache.containsData(forKey: "no-validators"))
        let stats = cache.statistics
        #expect(stats.hits == 5 && stats.stores == 3 && stats.connectFailures == 0 && stats.commandFailures == 0)
    }

    @Test func removeAllDataLeavesOtherNamespacesAlone() throws {
        let server = try RedisServerProcess()
        let mine = RedisCache(configuration: .forTests([server]))
        let theirs = RedisCache(configuration: .forTests([server]))
        for index in 0..<30 { try mine.setData(Self.bytes(100, seed: 1), forKey: "k\(index)") }
        try theirs.setData(Self.bytes(100, seed: 2), forKey: "k0")
        try mine.removeAllData()
        #expect(mine.totalCount == 0)
        #expect(try theirs.data(forKey: "k0") == Self.bytes(100, seed: 2))
    }

    @Test func entriesExpireAfterTheirTTL() throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server])
        configuration.defaultTTL = .seconds(1)
        let cache = RedisCache(configuration: configuration)
        try cache.setData(Self.bytes(50, seed: 1), forKey: "short-lived")
        guard case .integer(let ttl) = try server.command(["PTTL", cache.redisKey(forKey: "short-lived")]) else {
            Issue.record("PTTL did not answer an integer")
            return
        }
        #expect(ttl <= 1000 && ttl != -1)  // -2 (already gone) only if this machine stalled for a second
        try eventually("the entry expires") { try cache.data(forKey: "short-lived") == nil }
    }

    @Test func valuesOverTheSizeCapAreNotStored() throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server])
        configuration.maxValueSize = 4096
        let cache = RedisCache(configuration: configuration)
        try cache.setData(Self.bytes(4096 - RedisValueEnvelope.headerSize, seed: 1), forKey: "fits")
        try cache.setData(Self.bytes(4096, seed: 1), forKey: "too big")
        try cache.setData(
            Self.bytes(4000, seed: 1), extendedData: Self.bytes(200, seed: 2), forKey: "too big with validators")
        #expect(cache.containsData(forKey: "fits"))
        #expect(!cache.containsData(forKey: "too big"))
        #expect(!cache.containsData(forKey: "too big with validators"))
        #expect(cache.statistics.oversizedValues == 2)
    }

    @Test(arguments: RedisCacheConfiguration.WritePolicy.allCases)
    func thousandConcurrentGetsAndSetsFromSeveralTasks(policy: RedisCacheConfiguration.WritePolicy) async throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server], policy: policy)
        configuration.maxPendingWrites = 1000
        let cache = RedisCache(configuration: configuration)
        let taskCount = 8
        let operationsPerTask = 125  // 8 × 125 = 1,000 sets, then as many gets
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    for index in 0..<operationsPerTask {
                        try cache.setData(Self.bytes(1000 + index, seed: UInt8(task)), forKey: "t\(task)-\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(cache.waitForPendingWrites(timeout: .seconds(60)))
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    var wrong = 0
                    for index in 0..<operationsPerTask
                    where try cache.data(forKey: "t\(task)-\(index)") != Self.bytes(1000 + index, seed: UInt8(task)) {
                        wrong += 1
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
        let stats = cache.statistics
        #expect(stats.stores == 1000 && stats.hits == 1000 && stats.droppedWrites == 0)
        #expect(stats.connectionsOpened <= configuration.connectionsPerNode)
    }

    @Test func writeBehindDropsWritesBeyondItsBound() throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server], policy: .writeBehind)
        configuration.maxPendingWrites = 4
        let cache = RedisCache(configuration: configuration)
        // A frozen Redis answers nothing, so the queue cannot drain while we fill it (connections still
        // open: the kernel completes them from the listen backlog).
        server.pause()
        for index in 0..<20 { try cache.setData(Self.bytes(10, seed: 1), forKey: "w\(index)") }
        // Four wait (or are in flight, unanswered); the other sixteen are dropped at once.
        #expect(cache.statistics.droppedWrites == 16)
        server.resume()
        #expect(cache.waitForPendingWrites(timeout: .seconds(30)))
    }

    @Test func corruptValuesAreMissesAndGetDeleted() throws {
        let server = try RedisServerProcess()
        let cache = RedisCache(configuration: .forTests([server]))
        let good = RedisValueEnvelope.encode(Self.bytes(2000, seed: 5), extendedData: Data("{}".utf8))!
        var flipped = good
        flipped[flipped.startIndex + 1000] ^= 0x40
        let values: [(String, Data)] = [
            ("garbage", Data("not an envelope at all".utf8)),
            ("flipped", flipped),
            ("truncated", good.prefix(good.count - 7)),
            ("longer", good + Data([0])),
            ("empty", Data()),
        ]
        _ = try server.command(values.map { RedisCommand.make("SET", Data(cache.redisKey(forKey: $0.0).utf8), $0.1) })
        for (key, _) in values {
            #expect(try cache.data(forKey: key) == nil, "\(key)")
        }
        #expect(cache.statistics.corruptValues == values.count)
        #expect(cache.waitForPendingWrites())
        for (key, _) in values {
            #expect(try server.command(["EXISTS", cache.redisKey(forKey: key)]) == .integer(0), "\(key) was deleted")
        }
        // A non-string under our key (another program's list) is a miss too, not a failure of the load.
        _ = try server.command(["RPUSH", cache.redisKey(forKey: "a list"), "x"])
        #expect(try cache.data(forKey: "a list") == nil)
    }

    @Test func aSlowServerIsAMissWithinTheReadTimeout() throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server])
        configuration.readTimeout = .milliseconds(100)
        let cache = RedisCache(configuration: configuration)
        try eventually("the value is stored and readable") {
            try cache.setData(Self.bytes(100, seed: 1), forKey: "k")
            return try cache.data(forKey: "k") != nil
        }
        let sleeper = Thread { _ = try? server.command(["DEBUG", "SLEEP", "2"]) }
        sleeper.start()
        try eventually("a read times out") {
            _ = try cache.data(forKey: "k")
            return cache.statistics.timeouts > 0
        }
        // After the sleep the node serves again through a new connection.
        try eventually("the server answers again") { try cache.data(forKey: "k") != nil }
    }

    @Test func passwordAndACLUserAuthenticate() throws {
        let server = try RedisServerProcess(extraArguments: ["--requirepass", "s3cret"])
        _ = try server.command(
            [RedisCommand.make(["ACL", "SETUSER", "fleet", "on", ">fleet-pw", "~*", "+@all"])],
            password: "s3cret")
        var configuration = RedisCacheConfiguration.forTests([server])
        let anonymous = RedisCache(configuration: configuration)
        try anonymous.setData(Self.bytes(10, seed: 1), forKey: "k")
        #expect(try anonymous.data(forKey: "k") == nil)
        #expect(anonymous.statistics.commandFailures > 0)

        configuration.nodes[0].password = "s3cret"
        let withPassword = RedisCache(configuration: configuration)
        try withPassword.setData(Self.bytes(10, seed: 1), forKey: "k")
        #expect(try withPassword.data(forKey: "k") == Self.bytes(10, seed: 1))

        let user = RedisCache(
            configuration: try {
                var c = configuration
                c.nodes = [try RedisEndpoint(url: "redis://fleet:fleet-pw@127.0.0.1:\(server.port)")]
                return c
            }())
        #expect(try user.data(forKey: "k") == Self.bytes(10, seed: 1))

        configuration.nodes[0].password = "wrong"
        let wrong = RedisCache(configuration: configuration)
        #expect(try wrong.data(forKey: "k") == nil)
        #expect(wrong.statistics.connectFailures > 0)
    }

    @Test func selectsTheDatabaseOfTheURL() throws {
        let server = try RedisServerProcess()
        var configuration = try RedisCacheConfiguration(url: "redis://127.0.0.1:\(server.port)/3")
        configuration.writePolicy = .writeThrough
        // the library's defaults (250 ms) are for a production network,
        configuration.connectTimeout = .milliseconds(5000)
        configuration.readTimeout = .milliseconds(5000)  // not a loaded test machine
        configuration.writeTimeout = .milliseconds(5000)
        let cache = RedisCache(configuration: configuration)
        try cache.setData(Self.bytes(10, seed: 1), forKey: "db3")
        #expect(try server.command(["EXISTS", cache.redisKey(forKey: "db3")]) == .integer(0))
        let reply = try server.command([
            RedisCommand.make(["SELECT", "3"]), RedisCommand.make(["EXISTS", cache.redisKey(forKey: "db3")]),
        ])
        #expect(reply[1] == .integer(1))
    }
}
