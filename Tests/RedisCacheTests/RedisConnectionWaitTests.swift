import Foundation
import Glibc
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageRedisCache

/// How a connection waits for replies: the first receive of an exchange sleeps in the kernel, bounded by
/// the read timeout (SO_RCVTIMEO); the receives after it poll against the exchange's deadline. Each way of
/// waiting must still end in the timeout, and many callers must share few connections without mixing up
/// their replies.
@Suite struct RedisConnectionWaitTests {
    @Test func connectionsToARealServerWaitInTheReceive() throws {
        let server = try RedisServerProcess()
        let connection = try RedisReplyReaderTests.connection(server.endpoint.port, readTimeout: 5000)
        #expect(connection.blockingReads)
        #expect(try connection.run([RedisCommand.make(["PING"])]) == [.status("PONG")])
    }

    /// Also with the longest spin before the wait (`RedisCacheConfiguration.replySpin`).
    @Test(arguments: [0, 1000])
    func aServerThatNeverAnswersEndsInTheReadTimeout(spinMicroseconds: Int) throws {
        let server = try SteppedRedisServer(answers: [[Data()]], holdOpen: true)
        let connection = try RedisReplyReaderTests.connection(
            server.port, readTimeout: 200, spinMicroseconds: spinMicroseconds)
        #expect(connection.blockingReads)
        let start = ContinuousClock.now
        #expect(throws: RedisFailure.timeout) { try connection.run([RedisCommand.make(["GET", "k"])]) }
        let elapsed = ContinuousClock.now - start
        // The receive waited (no early give-up), and not past the timeout by more than a loaded machine's
        // scheduling delay (the server holds the connection open until the client closes it).
        #expect(elapsed >= .milliseconds(150))
        #expect(elapsed < .milliseconds(2000))
    }

    @Test func aServerThatStopsMidPipelineEndsInTheReadTimeout() throws {
        // The first reply whole, the second cut inside its value, the third never sent.
        let server = try SteppedRedisServer(
            answers: [[Data("$-1\r\n$20000\r\nthe start of a value".utf8)]], holdOpen: true)
        var configuration = try RedisCacheConfiguration(nodes: [RedisEndpoint(host: "127.0.0.1", port: server.port)])
        configuration.connectTimeout = .milliseconds(5000)
        configuration.readTimeout = .milliseconds(200)
        let cache = RedisCache(configuration: configuration)
        let start = ContinuousClock.now
        let found = cache.entries(forKeys: ["a", "b", "c"])
        let elapsed = ContinuousClock.now - start
        #expect(found.isEmpty)
        #expect(cache.statistics.timeouts == 1)
        #expect(cache.statistics.misses == 3)
        #expect(elapsed >= .milliseconds(150))
        #expect(elapsed < .milliseconds(2000))
    }

    /// A distinct value per key, 3 KB to 35 KB: a caller handed another caller's reply would see it.
    static func value(_ index: Int) -> Data {
        Data((0..<(3000 + index * 500)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
    }

    @Test func manyCallersShareFewConnections() throws {
        let server = try RedisServerProcess()
        var configuration = RedisCacheConfiguration.forTests([server])
        configuration.connectionsPerNode = 2
        let cache = RedisCache(configuration: configuration)
        let keys = (0..<64).map { "https://example.com/\($0).png" }
        for (index, key) in keys.enumerated() {
            cache.store(Self.value(index), extendedData: Data([UInt8(index)]), forKey: key)
        }
        #expect(cache.statistics.stores == keys.count)

        #if WEBIMAGE_TSAN
        // ThreadSanitizer slows every byte the values' checksums read many times over: fewer rounds still
        // put 8 callers on 2 connections.
        let callers = 8, rounds = 6
        #else
        let callers = 16, rounds = 40
        #endif
        let wrong = Locked(0)
        let finished = DispatchGroup()
        for caller in 0..<callers {
            finished.enter()
            Thread {
                defer { finished.leave() }
                for round in 0..<rounds {
                    let index = (caller * 7 + round) % keys.count
                    if round.isMultiple(of: 2) {
                        let entry = cache.entry(forKey: keys[index])
                        if entry?.data != Self.value(index) || entry?.extendedData != Data([UInt8(index)]) {
                            wrong.withLock { $0 += 1 }
                        }
                    } else {
                        let batch = (0..<8).map { (index + $0) % keys.count }
                        let found = cache.entries(forKeys: batch.map { keys[$0] })
                        for item in batch where found[keys[item]]?.data != Self.value(item) {
                            wrong.withLock { $0 += 1 }
                        }
                    }
                }
            }.start()
        }
        #expect(finished.wait(timeout: .now() + 300) == .success)
        #expect(wrong.withLock { $0 } == 0)
        let statistics = cache.statistics
        #expect(statistics.misses == 0 && statistics.timeouts == 0 && statistics.poolWaitTimeouts == 0)
        #expect(statistics.connectionsOpened <= 2)
    }
}
