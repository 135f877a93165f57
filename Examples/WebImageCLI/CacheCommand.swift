import ArgumentParser
import Foundation
import WebImage
import WebImageRedisCache

/// `webimage cache info|clear`.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Inspect or clear the shared cache.",
        subcommands: [Info.self, Clear.self])

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the cache's directory, entries, bytes and limits.")
        @Option(
            help: ArgumentHelp(
                "Redis URL(s) of the shared tier, redis://[user:password@]host:port/db, comma-separated for shards.",
                discussion: "Defaults to $WEBIMAGE_REDIS_URL; without either, no Redis tier is shown."))
        var redis: String?
        func run() async throws {
            guard let cache = WebImage.cache, let disk = cache.disk as? DiskCache else {
                Console.error("the disk cache could not be opened at \(DiskCache.defaultDirectory.path)")
                throw ExitCode.failure
            }
            let config = disk.configuration
            print("directory: \(disk.directory.path)")
            print("entries:   \(disk.totalCount)")
            print(
                "bytes:     \(disk.totalSize) (\(ByteCountFormatter.string(fromByteCount: Int64(disk.totalSize), countStyle: .binary)))"
            )
            print("max age:   \(config.maxDiskAge.components.seconds / 86400) days (by \(config.expireType.rawValue))")
            print(
                "max size:  \(config.maxDiskSize == 0 ? "unlimited" : ByteCountFormatter.string(fromByteCount: Int64(config.maxDiskSize), countStyle: .binary))"
            )
            if let url = redis ?? ProcessInfo.processInfo.environment[RedisTierInfo.environmentVariable] {
                try RedisTierInfo.print(url: url)
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Empty the cache (both levels unless one is named).")
        @Flag(help: "Clear only the memory level.") var memory = false
        @Flag(help: "Clear only the disk level.") var disk = false
        func run() async throws {
            guard let cache = WebImage.cache else {
                Console.error("the disk cache could not be opened at \(DiskCache.defaultDirectory.path)")
                throw ExitCode.failure
            }
            let type: ImageCacheType = memory == disk ? .all : (memory ? .memory : .disk)
            await cache.clear(cacheType: type)
            print("cleared \(type.rawValue) cache")
        }
    }
}
