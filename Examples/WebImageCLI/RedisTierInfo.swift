import ArgumentParser
import Foundation
import WebImageRedisCache

/// The Redis tier's part of `webimage cache info`.
enum RedisTierInfo {
    /// Names the shared tier's URL(s) when `--redis` is not given.
    static let environmentVariable = "WEBIMAGE_REDIS_URL"

    static func print(url: String) throws {
        let redis: RedisCache
        do {
            redis = try RedisCache(url: url)
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        let configuration = redis.configuration
        let reachable = redis.reachableNodes()
        Swift.print(
            "redis:     \(configuration.nodes.count == 1 ? "1 node" : "\(configuration.nodes.count) nodes (consistent hashing)")"
        )
        for (node, up) in zip(configuration.nodes, reachable) {
            Swift.print(
                "  node:    \(node) \(up ? "reachable" : "unreachable")\(node.password == nil ? "" : ", AUTH\(node.user.map { " as \($0)" } ?? "")")"
            )
        }
        Swift.print("  keys:    \(configuration.keyPrefix)*")
        Swift.print("  entries: \(redis.totalCount)")
        Swift.print(
            "  bytes:   \(ByteCountFormatter.string(fromByteCount: Int64(redis.totalSize), countStyle: .binary))")
        Swift.print("  ttl:     \(configuration.defaultTTL.components.seconds) s")
        Swift.print(
            "  max value: \(ByteCountFormatter.string(fromByteCount: Int64(configuration.maxValueSize), countStyle: .binary))"
        )
        Swift.print("  writes:  \(configuration.writePolicy == .writeBehind ? "write-behind" : "write-through")")
    }
}
