import CRedis
import Foundation
import Testing
import WebImageTestSupport

@testable import WebImageRedisCache

/// The spin before a connection sleeps for its reply (`RedisCacheConfiguration.replySpin`) and the
/// checksum computed as each reply comes in: replies come out the same whether a spin catches them, misses
/// them or is skipped, and the checksum is the CRC-32C of the bytes after the header. (The read timeout
/// with a spin: `RedisConnectionWaitTests`.)
@Suite struct RedisReplySpinTests {
    static func value(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ Int(seed)) })
    }

    static func bulk(_ value: Data) -> Data { Data("$\(value.count)\r\n".utf8) + value + Data("\r\n".utf8) }

    static func connection(
        port: Int, spin: Int, readTimeout: Int = 10_000, checksumSkip: Int? = nil
    ) throws -> RedisConnection {
        try RedisConnection(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: port), connectTimeout: 10_000,
            readTimeout: readTimeout, writeTimeout: 10_000, replyMemory: RedisReplyMemory(retainedLimit: 1 << 20),
            replySpinMicroseconds: spin, checksumSkip: checksumSkip)
    }

    @Test func repliesFromARealServerAreTheSameWithAndWithoutTheSpin() throws {
        let server = try RedisServerProcess()
        defer { server.stop() }
        let sizes = [1, 100, 2_047, 2_048, 20_000, 70_000, 300_000]
        let values = sizes.enumerated().map { Self.value($1, seed: UInt8($0)) }
        let writer = try Self.connection(port: server.port, spin: 0)
        _ = try writer.run(values.enumerated().map { RedisCommand.make("SET", Data("k\($0)".utf8), $1) })
        for spin in [0, 1, 200, 1000] {
            let connection = try Self.connection(port: server.port, spin: spin)
            for round in 0..<40 {
                // Single GETs and pipelines of every value, in turns, so both kinds of wait run.
                let index = round % values.count
                #expect(
                    try connection.run([RedisCommand.make("GET", Data("k\(index)".utf8))]).map(\.bytes) == [
                        values[index]
                    ])
                let pipeline = values.indices.map { RedisCommand.make("GET", Data("k\($0)".utf8)) }
                #expect(try connection.run(pipeline).map(\.bytes) == values)
            }
        }
    }

    @Test func repliesPausedLongerThanTheSpinArriveWhole() throws {
        // Every answer comes in three pieces 20 ms apart, a hundred times the 200 µs window: the spins run
        // out, the connection backs off and sleeps instead, and every value still arrives whole.
        let values = (0..<8).map { Self.value(20_000 + $0, seed: UInt8($0)) }
        let answers = values.map { value -> [Data] in
            let reply = Self.bulk(value)
            return [reply.prefix(4), reply[4..<9_000], reply[9_000...]]
        }
        let server = try SteppedRedisServer(answers: answers)
        let connection = try Self.connection(port: server.port, spin: 200)
        for value in values {
            #expect(try connection.run([RedisCommand.make(["GET", "k"])]).map(\.bytes) == [value])
        }
    }

    @Test func aServerThatClosesDuringTheSpinIsAnIOError() throws {
        // Half an answer, then the server closes: the spin sees the end of the stream.
        let reply = Self.bulk(Self.value(5_000, seed: 9))
        let server = try SteppedRedisServer(answers: [[reply.prefix(2_000)]])
        let connection = try Self.connection(port: server.port, spin: 1000)
        #expect(throws: RedisFailure.self) { try connection.run([RedisCommand.make(["GET", "k"])]) }
    }

    @Test func checksumsCoverTheBytesAfterTheSkip() throws {
        let long = Self.value(20_000, seed: 3), short = Self.value(10, seed: 4), medium = Self.value(3_000, seed: 5)
        let answer = Self.bulk(long) + Self.bulk(short) + Self.bulk(medium) + Data(":5\r\n".utf8)
        let server = try SteppedRedisServer(answers: [[answer], [answer]])
        let connection = try Self.connection(port: server.port, spin: 200, checksumSkip: 16)
        for _ in 0..<2 {
            let replies = try connection.run((0..<4).map { _ in RedisCommand.make(["GET", "k"]) })
            let checksums = replies.map { reply -> UInt32?? in
                guard case .buffer(let bytes) = reply else { return .none }
                return .some(bytes.checksum)
            }
            #expect(checksums[0] == .some(Self.crc32c(long.dropFirst(16))))
            #expect(checksums[1] == .some(nil))  // shorter than the skip
            #expect(checksums[2] == .some(Self.crc32c(medium.dropFirst(16))))
            #expect(checksums[3] == .none)  // not a string
        }
        // Without a skip, the connection computes nothing.
        let plain = try SteppedRedisServer(answers: [[Self.bulk(long)]])
        let reply = try Self.connection(port: plain.port, spin: 0).run([RedisCommand.make(["GET", "k"])])[0]
        guard case .buffer(let bytes) = reply else {
            Issue.record("expected a buffer reply, got \(reply)")
            return
        }
        #expect(bytes.checksum == nil)
    }

    @Test func aValueWhoseChecksumDisagreesIsRefused() throws {
        // An envelope whose stored CRC is wrong for its bytes: with the checksum from the connection, the
        // envelope refuses it as it refuses it from bytes.
        var stored = try #require(RedisValueEnvelope.encode(Self.value(20_000, seed: 6), extendedData: Data("v".utf8)))
        stored[stored.startIndex + 12] ^= 1
        let server = try SteppedRedisServer(answers: [[Self.bulk(stored)]])
        let connection = try Self.connection(port: server.port, spin: 200, checksumSkip: RedisValueEnvelope.headerSize)
        let reply = try connection.run([RedisCommand.make(["GET", "k"])])[0]
        guard case .buffer(let bytes) = reply else {
            Issue.record("expected a buffer reply, got \(reply)")
            return
        }
        #expect(bytes.checksum != nil)
        #expect(RedisValueEnvelope.decode(bytes) == nil)
        #expect(RedisValueEnvelope.decode(stored) == nil)
    }

    @Test func theConfiguredSpinIsWholeMicrosecondsUpToOneMillisecond() throws {
        var configuration = try RedisCacheConfiguration(nodes: [RedisEndpoint(host: "127.0.0.1", port: 1)])
        #expect(configuration.replySpinMicroseconds == 200)
        let cases: [(Duration, Int)] = [
            (.zero, 0), (.microseconds(50), 50), (.nanoseconds(1_500), 1), (.nanoseconds(999), 0),
            (.microseconds(-5), 0), (.milliseconds(1), 1000), (.milliseconds(3), 1000), (.seconds(2), 1000),
        ]
        for (spin, microseconds) in cases {
            configuration.replySpin = spin
            #expect(configuration.replySpinMicroseconds == microseconds, "\(spin)")
        }
    }

    static func crc32c(_ bytes: Data) -> UInt32 {
        bytes.withUnsafeBytes { credis_crc32c(0, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    }
}
