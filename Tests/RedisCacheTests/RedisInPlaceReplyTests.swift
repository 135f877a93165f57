import Foundation
import Glibc
import LoopbackHTTPServer
import Testing
import WebImageTestSupport

@testable import WebImageRedisCache

/// The first reply of an exchange received straight into its block (`credis_exchange`'s `bulk_hint`):
/// after a value of some size, the next exchange's first receive goes into a block of that size, and a
/// value that fits stays there. Each case first sends a value that sets the hint, then the case's
/// replies, in the pieces given, from a loopback server.
@Suite struct RedisInPlaceReplyTests {
    /// A value of `count` bytes that no neighbour can be mistaken for.
    static func value(_ count: Int, seed: UInt8 = 0) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(seed)) })
    }

    /// `$<length>\r\n<value>\r\n`.
    static func bulk(_ value: Data) -> Data { Data("$\(value.count)\r\n".utf8) + value + Data("\r\n".utf8) }

    /// A connection with reply memory (the in-place path needs a pool) whose hint is set to 20,000 bytes
    /// by a first exchange, then a second exchange answered by `pieces`.
    static func secondExchange(
        _ pieces: [Data], replies: Int = 1, holdOpen: Bool = false, readTimeout: Int = 10_000
    ) throws -> (result: Result<[RedisReply], RedisFailure>, elapsed: Duration) {
        let first = value(20_000, seed: 1)
        let server = try SteppedRedisServer(answers: [[bulk(first)], pieces], holdOpen: holdOpen)
        let connection = try RedisConnection(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: server.port), connectTimeout: 10_000,
            readTimeout: readTimeout, writeTimeout: 10_000, replyMemory: RedisReplyMemory(retainedLimit: 1 << 20))
        #expect(try connection.run([RedisCommand.make(["GET", "first"])]).first?.bytes == first)
        let commands = (0..<replies).map { _ in RedisCommand.make(["GET", "k"]) }
        let start = ContinuousClock.now
        let result = Result { () throws(RedisFailure) in try connection.run(commands) }
        return (result, ContinuousClock.now - start)
    }

    @Test func aValueOfTheHintedSizeSplitAcrossReadsArrivesWhole() throws {
        let expected = Self.value(20_000, seed: 2)
        let reply = Self.bulk(expected)
        // The `$` line alone, then most of the value, then the rest and its CRLF.
        let (result, _) = try Self.secondExchange([reply.prefix(3), reply[3..<15_000], reply[15_000...]])
        #expect(try result.get().map(\.bytes) == [expected])
    }

    @Test func repliesAfterAnInPlaceValueAreReadFromTheSameReceive() throws {
        let expected = Self.value(19_990, seed: 3)
        let small = Self.value(3_000, seed: 4)
        let (result, _) = try Self.secondExchange(
            [Self.bulk(expected) + Self.bulk(small) + Data("+OK\r\n$-1\r\n".utf8)], replies: 4)
        #expect(try result.get().map(\.bytes) == [expected, small, Data("OK".utf8), nil])
    }

    @Test(arguments: [100, 9_000, 30_000, 200_000])
    func valuesSmallerOrLargerThanTheHintAreCopiedAsBefore(size: Int) throws {
        let expected = Self.value(size, seed: 5)
        let reply = Self.bulk(expected) + Data("+PONG\r\n".utf8)
        let (result, _) = try Self.secondExchange([reply.prefix(5), reply.dropFirst(5)], replies: 2)
        #expect(try result.get().map(\.bytes) == [expected, Data("PONG".utf8)])
    }

    @Test func aReplyThatIsNotAStringAfterAHintParses() throws {
        let (result, _) = try Self.secondExchange(
            [Data("*2\r\n$3\r\nabc\r\n:7\r\n-ERR no\r\n".utf8)], replies: 2)
        #expect(try result.get() == [.array([.bulk(Data("abc".utf8)), .integer(7)]), .error("ERR no")])
    }

    @Test func aServerThatStallsMidValueEndsInTheReadTimeout() throws {
        let reply = Self.bulk(Self.value(20_000, seed: 6))
        let (result, elapsed) = try Self.secondExchange([reply.prefix(12_000)], holdOpen: true, readTimeout: 200)
        #expect(throws: RedisFailure.timeout) { try result.get() }
        #expect(elapsed >= .milliseconds(150))
        #expect(elapsed < .milliseconds(2000))
    }

    @Test func aValueLongerThanItsLengthIsAProtocolError() throws {
        // 20,000 bytes announced, 20,004 sent before the CRLF.
        let reply = Data("$20000\r\n".utf8) + Self.value(20_004) + Data("\r\n".utf8)
        let (result, _) = try Self.secondExchange([reply])
        #expect(throws: RedisFailure.io("bulk string not followed by CRLF")) { try result.get() }
    }

    @Test func aValueShorterThanItsLengthEndsWhenTheServerCloses() throws {
        let reply = Data("$20000\r\n".utf8) + Self.value(19_000) + Data("\r\n".utf8)
        let (result, _) = try Self.secondExchange([reply])
        #expect(throws: RedisFailure.io("server closed the connection")) { try result.get() }
    }

    @Test func aRealServersValuesOfChangingSizesRoundTrip() throws {
        let server = try RedisServerProcess()
        let cache = RedisCache(configuration: .forTests([server]))
        let sizes = [20_000, 20_000, 21_000, 2_500, 60_000, 64_000, 100, 20_000, 40_000, 19_000]
        for (index, size) in sizes.enumerated() {
            cache.store(Self.value(size, seed: UInt8(index)), extendedData: nil, forKey: "k\(index)")
        }
        for _ in 0..<3 {
            for (index, size) in sizes.enumerated() {
                #expect(cache.entry(forKey: "k\(index)")?.data == Self.value(size, seed: UInt8(index)))
            }
        }
        #expect(cache.statistics.misses == 0 && cache.statistics.corruptValues == 0)
    }
}
