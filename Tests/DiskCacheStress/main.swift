// A second (third, ...) process for WebImageDiskCacheTests: writes, reads and trims one cache directory
// shared with the test process, and fails if it ever reads a torn entry or a store fails.
//
// Usage: disk-cache-stress <directory> <namespace> <seed> <iterations> <maxDiskSize>
// Exit status: 0 all good, 1 torn read, 2 I/O error, 64 bad usage.
import Foundation
import WebImageDiskCache
import WebImageTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 6, let seed = UInt64(arguments[3]), let iterations = Int(arguments[4]),
    let maxDiskSize = Int(arguments[5])
else {
    FileHandle.standardError.write(
        Data("usage: disk-cache-stress <directory> <namespace> <seed> <iterations> <maxDiskSize>\n".utf8))
    exit(64)
}

/// Keys shared by every process, so each one rewrites and reads the others' entries.
let keyCount = 16

var configuration = DiskCacheConfiguration()
configuration.maxDiskSize = maxDiskSize
var hits = 0
do {
    let cache = try DiskCache(
        directory: URL(fileURLWithPath: arguments[1]), namespace: arguments[2],
        configuration: configuration)
    for i in 0..<iterations {
        let value = seed &* 1_000_003 &+ UInt64(i)
        try cache.setData(SelfCheckingPayload.make(seed: value), forKey: "shared-\(i % keyCount)")
        if let data = try cache.data(forKey: "shared-\((i * 7 + Int(seed)) % keyCount)") {
            guard SelfCheckingPayload.isValid(data) else {
                print("torn read of \(data.count) bytes at iteration \(i)")
                exit(1)
            }
            hits += 1
        }
        // Trims remove files the other processes are about to read or replace.
        if i % 25 == 24 { try cache.removeExpiredData() }
    }
} catch {
    print("I/O error: \(error)")
    exit(2)
}
print("ok: \(iterations) writes, \(hits) hits")
