internal import CRedis
import Foundation

/// The bytes of one string reply from `credis_exchange`, owned: the reply is freed when this object and every `Data`
/// made from it are gone. Lets a 20 KB image reach the caller without being copied out of the reply,
/// which matters when a pipeline brings sixteen of them at once.
final class RedisReplyBytes: Sendable, Equatable {
    /// The `redisReply *` this object frees (an address, so the type is plainly `Sendable`).
    private let reply: UInt
    /// Address and length of the reply's string; valid until `deinit`.
    private let base: UInt
    let count: Int
    /// The CRC-32C of the bytes after the connection's checksum offset, when the connection computed it
    /// as the reply came in (`RedisConnection`'s `checksumSkip`); nil otherwise.
    let checksum: UInt32?

    /// Takes ownership of `reply`, a string reply with a non-empty string.
    init(taking reply: UnsafeMutablePointer<redisReply>) {
        self.reply = UInt(bitPattern: reply)
        base = UInt(bitPattern: reply.pointee.str)
        count = reply.pointee.len
        var crc: UInt32 = 0
        checksum = credis_reply_checksum(reply, &crc) != 0 ? crc : nil
    }

    deinit { credis_free_reply(UnsafeMutablePointer(bitPattern: reply)) }

    /// Runs `body` over the bytes.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) {
            try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: base), count: count))
        }
    }

    /// The bytes in `range` as `Data` without a copy; the `Data` keeps this object alive.
    func data(_ range: Range<Int>) -> Data {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range outside the reply")
        guard !range.isEmpty, let start = UnsafeMutableRawPointer(bitPattern: base + UInt(range.lowerBound)) else {
            return Data()
        }
        return Data(
            bytesNoCopy: start, count: range.count, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    static func == (lhs: RedisReplyBytes, rhs: RedisReplyBytes) -> Bool {
        lhs.withBytes { l in rhs.withBytes { r in l.elementsEqual(r) } }
    }
}
