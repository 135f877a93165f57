import Foundation
import Glibc
import LoopbackHTTPServer
import Testing
import WebImageTestSupport

@testable import WebImageRedisCache

/// The RESP2 reader behind `credis_exchange`: every reply type from a real redis-server, the bulk-length
/// limit, and a scripted server that answers with broken or hostile bytes.
@Suite struct RedisReplyReaderTests {
    static func connection(
        _ port: Int, readTimeout: Int = 10_000, maxBulkLength: Int = RedisConnection.redisStringLimit,
        spinMicroseconds: Int = 0
    ) throws -> RedisConnection {
        try RedisConnection(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: port), connectTimeout: 10_000,
            readTimeout: readTimeout, writeTimeout: 10_000, maxBulkLength: maxBulkLength,
            replySpinMicroseconds: spinMicroseconds)
    }

    @Test func everyReplyTypeOfARealServerParses() throws {
        let server = try RedisServerProcess()
        let connection = try Self.connection(server.endpoint.port)
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })  // several socket reads
        let replies = try connection.run(
            [
                RedisCommand.make(["PING"]),
                RedisCommand.make("SET", Data("big".utf8), big),
                RedisCommand.make(["GET", "missing"]),
                RedisCommand.make(["INCR", "counter"]),
                RedisCommand.make("SET", Data("empty".utf8), Data()),
                RedisCommand.make(["GET", "empty"]),
                RedisCommand.make(["RPUSH", "list", "a", "bc"]),
                RedisCommand.make(["LRANGE", "list", "0", "-1"]),
                RedisCommand.make(["SCAN", "0", "MATCH", "list", "COUNT", "1000"]),
                RedisCommand.make(["NOSUCHCOMMAND"]),
            ] + (0..<16).map { _ in RedisCommand.make(["GET", "big"]) })
        #expect(replies[0] == .status("PONG"))
        #expect(replies[1] == .status("OK"))
        #expect(replies[2] == .null)
        #expect(replies[3] == .integer(1))
        #expect(replies[4] == .status("OK") && replies[5] == .bulk(Data()))
        #expect(replies[6] == .integer(2))
        #expect(replies[7] == .array([.bulk(Data("a".utf8)), .bulk(Data("bc".utf8))]))
        #expect(replies[8] == .array([.bulk(Data("0".utf8)), .array([.bulk(Data("list".utf8))])]))
        if case .error(let message) = replies[9] {
            #expect(message.hasPrefix("ERR"))
        } else {
            Issue.record("\(replies[9])")
        }
        for reply in replies[10...] { #expect(reply.bytes == big) }
    }

    @Test func aBulkStringOverTheLimitIsAnErrorReplyAndTheConnectionGoesOn() throws {
        let server = try RedisServerProcess()
        _ = try server.command([RedisCommand.make("SET", Data("large".utf8), Data(count: 200_000))])
        let connection = try Self.connection(server.endpoint.port, maxBulkLength: 1000)
        let replies = try connection.run([RedisCommand.make(["GET", "large"]), RedisCommand.make(["PING"])])
        #expect(replies[0] == .error("ERR value longer than the client's limit"))
        #expect(replies[1] == .status("PONG"))
        #expect(try connection.run([RedisCommand.make(["PING"])]) == [.status("PONG")])
    }

    /// (what the server sends, the failure expected) for replies that are not RESP2 or lie about lengths.
    static let brokenReplies: [(String, Data, RedisFailure)] = [
        ("unknown type byte", Data("!oops\r\n".utf8), .io("unknown reply type")),
        ("length that is not a number", Data("$12a\r\nhello world!\r\n".utf8), .io("bad number in reply")),
        ("negative length", Data("$-5\r\n".utf8), .io("bad bulk string length")),
        ("length past 64 bits", Data("$99999999999999999999999\r\n".utf8), .io("bad number in reply")),
        ("payload without its CRLF", Data("$5\r\nhelloXY".utf8), .io("bulk string not followed by CRLF")),
        ("a line with no end", Data(repeating: UInt8(ascii: "+"), count: 10_000), .io("reply line too long")),
        ("array nested too deep", Data(String(repeating: "*1\r\n", count: 20).utf8), .io("arrays nested too deep")),
        ("huge array", Data("*99999999\r\n".utf8), .io("bad array length")),
        ("bytes after the last reply", Data("+OK\r\n+EXTRA\r\n".utf8), .io("bytes after the last reply")),
        ("empty line", Data("\r\n".utf8), .io("empty reply line")),
        ("connection closed mid-payload", Data("$20000\r\nonly a few bytes".utf8), .io("server closed the connection")),
    ]

    @Test(arguments: brokenReplies.indices)
    func brokenRepliesAreTypedFailures(case index: Int) throws {
        let (name, bytes, failure) = Self.brokenReplies[index]
        let server = try SteppedRedisServer(answers: [[bytes]])
        let connection = try Self.connection(server.port)
        #expect(throws: failure, "\(name)") { try connection.run([RedisCommand.make(["GET", "k"])]) }
    }

    @Test func aServerThatSendsHalfAReplyTimesOut() throws {
        let server = try SteppedRedisServer(answers: [[Data("$20000\r\nabc".utf8)]], holdOpen: true)
        let connection = try Self.connection(server.port, readTimeout: 200)
        let start = ContinuousClock.now
        #expect(throws: RedisFailure.timeout) { try connection.run([RedisCommand.make(["GET", "k"])]) }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aCacheOverABrokenServerMisses() throws {
        let server = try SteppedRedisServer(answers: [[Data("$3\r\nabcdef\r\n".utf8)]])
        var configuration = try RedisCacheConfiguration(nodes: [RedisEndpoint(host: "127.0.0.1", port: server.port)])
        // the broken reply comes at once; the timeout only has to not win
        configuration.readTimeout = .milliseconds(5000)
        let cache = RedisCache(configuration: configuration)
        #expect(try cache.data(forKey: "k") == nil)
        #expect(cache.statistics.misses == 1 && cache.statistics.commandFailures == 1)
    }
}
