import CRedis
import Foundation
import Glibc

/// The Redis tier's reply reader (`credis_exchange`): the input is what a hostile or broken server sends.
/// Its first byte picks how many replies the client waits for (1 to 8), its second the longest bulk
/// string kept (0 to 16 KB, in 64-byte steps), so the skip path for over-long values is fuzzed too.
///
/// The bytes go through a socketpair whose writing end is closed at once: the reader sees them, then end
/// of stream, the way a server that sent them and hung up would look.
enum RedisReplyHarness {
    /// Replies waited for at most: the first byte picks 1 to this many.
    static let maxReplies = 8
    /// How long the reader waits for more bytes. The input is all sent before the read starts, so only
    /// a reader bug waits at all.
    static let timeoutMilliseconds: Int32 = 100
    /// Unused block bytes the reply pool keeps: room for a couple of the strings an input can bring.
    static let retainedPoolBytes = 12 * 1024

    static func run(_ data: Data) {
        guard data.count >= 2 else { return }
        let count = 1 + Int(data[data.startIndex]) % maxReplies
        let maxBulk = Int(data[data.startIndex + 1]) * 64
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { return }
        // Non-blocking: what does not fit in the socket's buffer is dropped (a truncated reply), never
        // waited for, since nothing reads until the write is done.
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        data.dropFirst(2).withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let written = write(ends[0], bytes.baseAddress! + sent, bytes.count - sent)
                if written <= 0 { break }
                sent += written
            }
        }
        close(ends[0])
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        guard let context = redisConnectFd(ends[1]) else {
            close(ends[1])
            return
        }
        defer { redisFree(context) }  // closes ends[1]
        // Large strings go to a block pool that keeps little, so both of its paths (kept, freed) run; the
        // pool is released before the replies, as a cache may be while its values live on.
        let pool = credis_block_pool_create(retainedPoolBytes)
        var replies = [UnsafeMutablePointer<redisReply>?](repeating: nil, count: count)
        // A first value of about the longest length kept is received in place, and every wait spins first,
        // so both paths are fuzzed too.
        var state = credis_connection_state()
        state.bulk_hint = maxBulk
        state.spin_limit_us = 50
        let status = credis_exchange(
            context, timeoutMilliseconds, timeoutMilliseconds, maxBulk, pool, &state, count, &replies)
        credis_block_pool_release(pool)
        if status == CREDIS_OK {
            for reply in replies { credis_free_reply(reply) }
        }
    }

    /// Valid server answers to start from: every reply type, nesting, a value over the limit.
    /// (A function, not a stored list: a static's storage would still be alive when the seed-writing run
    /// exits, and LeakSanitizer would report it.)
    static func seeds() -> [(String, Data)] {
        [
            ("status-bulk-array.resp", Data([3, 16]) + Data("+OK\r\n$5\r\nhello\r\n*2\r\n$1\r\na\r\n:12\r\n".utf8)),
            ("nil-and-error.resp", Data([2, 1]) + Data("$-1\r\n-ERR unknown command\r\n".utf8)),
            ("nested-scan.resp", Data([1, 4]) + Data("*2\r\n$1\r\n0\r\n*2\r\n$3\r\nk:1\r\n$3\r\nk:2\r\n".utf8)),
            (
                "over-limit.resp",
                Data([2, 1]) + Data("$100\r\n".utf8) + Data(repeating: 120, count: 100)
                    + Data("\r\n+PONG\r\n".utf8)
            ),
        ]
    }
}
