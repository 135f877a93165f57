import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageRedisCache

/// Several Redis processes as shards of one cache (consistent hashing).
@Suite("Redis sharding")
struct RedisShardingTests {
    @Test func keysSpreadOverTwoServersAndSurviveOneBeingDown() throws {
        let servers = [try RedisServerProcess(), try RedisServerProcess()]
        let cache = RedisCache(configuration: .forTests(servers))
        let keys = (0..<400).map { "https://img.example.com/photos/\($0).jpg" }
        for key in keys { try cache.setData(Data(key.utf8), forKey: key) }

        var perServer: [Int] = []
        for server in servers {
            guard case .integer(let count) = try server.command(["DBSIZE"]) else { Issue.record("DBSIZE"); return }
            perServer.append(count)
        }
        #expect(perServer.reduce(0, +) == 400)
        // 160 points per node keep two nodes' shares near half; 30 %–70 % leaves room for any hash.
        #expect(perServer.allSatisfy { (120...280).contains($0) }, "\(perServer)")
        #expect(keys.filter { cache.nodeIndex(forKey: $0) == 0 }.count == perServer[0])

        servers[1].kill()
        var hits = 0
        for key in keys {
            if let data = try cache.data(forKey: key) {
                #expect(data == Data(key.utf8))
                hits += 1
            }
        }
        #expect(hits == perServer[0])
        // Every key of the dead shard was a miss, through a failure the counters saw; none of the live one.
        let afterKill = cache.statistics
        #expect(afterKill.misses == perServer[1])
        #expect(afterKill.connectFailures >= 1)
        #expect(afterKill.commandFailures + afterKill.connectFailures + afterKill.skippedWhileDown == perServer[1])
        // A further read of the dead shard fails to connect or is skipped while it waits out its backoff
        // (which of the two depends on the clock, so the counters are read rather than `isNodeDown(1)`).
        _ = try cache.data(forKey: keys.first { cache.nodeIndex(forKey: $0) == 1 }!)
        let afterProbe = cache.statistics
        #expect(
            afterProbe.connectFailures + afterProbe.skippedWhileDown
                == afterKill.connectFailures + afterKill.skippedWhileDown + 1)
        #expect(!cache.isNodeDown(0))
        // Writes to the dead shard are dropped quietly; the live shard keeps taking them.
        try cache.setData(Data("new".utf8), forKey: keys.first { cache.nodeIndex(forKey: $0) == 1 }!)
        try cache.setData(Data("new".utf8), forKey: keys.first { cache.nodeIndex(forKey: $0) == 0 }!)
        #expect(cache.statistics.stores == 401)

        try servers[1].start()
        let onSecond = keys.first { cache.nodeIndex(forKey: $0) == 1 }!
        try eventually("the second shard serves again") {
            try cache.setData(Data("back".utf8), forKey: onSecond)
            return try cache.data(forKey: onSecond) == Data("back".utf8)
        }
    }

    @Test func addingANodeMovesAboutItsShareOfKeys() {
        let two = ConsistentHashRing(names: ["a:6379/0", "b:6379/0"])
        let three = ConsistentHashRing(names: ["a:6379/0", "b:6379/0", "c:6379/0"])
        let keys = (0..<3000).map { Array("webimage:1:https://cdn.example.com/\($0).png".utf8) }
        let moved = keys.filter { two.node(for: $0) != three.node(for: $0) }
        // Ideal: a third of the keys move, all to the new node.
        #expect(moved.allSatisfy { three.node(for: $0) == 2 })
        #expect((700...1300).contains(moved.count), "\(moved.count)")
    }
}
