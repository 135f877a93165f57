internal import CRedis
import Foundation

/// Why a Redis call failed. Internal: the cache turns every one into a miss and a counter.
enum RedisFailure: Error, Sendable, Equatable {
    /// The connection could not be opened, or AUTH / SELECT was refused.
    case connect(String)
    /// The deadline passed.
    case timeout
    /// The socket failed, the server closed it, or it sent something that is not RESP.
    case io(String)
}

/// One hiredis connection to one node, with deadlines (see `CRedis.h`): a blocking socket whose receives
/// are bounded by the read timeout, and non-blocking sends and follow-up receives polled against the
/// exchange's deadlines.
///
/// Used by one thread at a time: a ``RedisNodePool`` hands it out exclusively and takes it back. A
/// connection whose exchange failed is in an unknown state (a reply may still be on its way) and is
/// dropped, never reused.
///
/// Unchecked `Sendable`: the hiredis context is not thread-safe, and this type is moved between threads,
/// never shared. The pool's lock guards the idle list; a connection taken from it belongs to one caller
/// until it is put back (region checking cannot follow a value out of and back into a lock across a call).
final class RedisConnection: @unchecked Sendable {
    /// Owned by this object: made by `credis_connect`, freed in `deinit`.
    private let context: UnsafeMutablePointer<redisContext>
    private let readTimeout: Int32
    private let writeTimeout: Int32
    /// Longest bulk string read; a longer one is skipped and becomes an error reply.
    private let maxBulkLength: Int
    /// Where large reply strings are placed; nil for malloc.
    private let replyMemory: RedisReplyMemory?
    /// What `credis_exchange` carries from one exchange to the next: the length of the last first reply
    /// (the next exchange's first receive is sized for a value of about that size and lands in place) and
    /// the spin before each wait for reply bytes. Only the one caller that holds this connection reads or
    /// writes it.
    private var state = credis_connection_state()
    /// Whether the socket blocks in the first receive of each exchange (`credis_use_blocking_reads`
    /// succeeded); when false, every wait is a poll().
    let blockingReads: Bool

    /// Redis's own limit on a string value (`proto-max-bulk-len`'s default): 512 MB.
    static let redisStringLimit = 512 << 20

    /// Largest error text hiredis or the shim writes (hiredis's own `errstr` is 128 bytes).
    private static let errorCapacity = 256

    /// Connects, authenticates and selects the database, each step within its timeout. Replies with a bulk
    /// string over `maxBulkLength` bytes become error replies without the string being kept; large strings
    /// are placed in blocks of `replyMemory` when given. Each wait for reply bytes first spins for up to
    /// `replySpinMicroseconds` (``RedisCacheConfiguration/replySpin``; 0 never spins). With
    /// `checksumSkip`, each string reply of at least that many bytes comes with the CRC-32C of the bytes
    /// after them (``RedisReplyBytes/checksum``), computed while the rest of a pipeline is still arriving.
    init(
        endpoint: RedisEndpoint, connectTimeout: Int, readTimeout: Int, writeTimeout: Int,
        maxBulkLength: Int = RedisConnection.redisStringLimit, replyMemory: RedisReplyMemory? = nil,
        replySpinMicroseconds: Int = 0, checksumSkip: Int? = nil
    ) throws(RedisFailure) {
        var error = [CChar](repeating: 0, count: Self.errorCapacity)
        guard
            let context = credis_connect(
                endpoint.host, Int32(clamping: endpoint.port), Int32(clamping: connectTimeout),
                &error, error.count)
        else {
            throw .connect(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.context = context
        self.readTimeout = Int32(clamping: readTimeout)
        self.writeTimeout = Int32(clamping: writeTimeout)
        self.maxBulkLength = max(0, maxBulkLength)
        self.replyMemory = replyMemory
        state.spin_limit_us = UInt32(clamping: replySpinMicroseconds)
        if let checksumSkip {
            state.checksum_values = 1
            state.checksum_skip = max(0, checksumSkip)
        }
        // The first bytes of each exchange's replies are then waited for inside one receive (bounded by the
        // read timeout) rather than by a failed read and a poll(): a GET costs a send and a receive. When
        // the socket cannot be switched, every wait polls, as before.
        blockingReads = credis_use_blocking_reads(context, self.readTimeout) == 0
        var setup: [[Data]] = []
        if let password = endpoint.password {
            setup.append(RedisCommand.make(["AUTH"] + (endpoint.user.map { [$0] } ?? []) + [password]))
        }
        if endpoint.database != 0 { setup.append(RedisCommand.make(["SELECT", String(endpoint.database)])) }
        guard !setup.isEmpty else { return }
        let replies: [RedisReply]
        do throws(RedisFailure) {
            replies = try run(setup)
        } catch {
            throw .connect("AUTH/SELECT: \(error)")
        }
        for reply in replies {
            if case .error(let message) = reply { throw .connect(message) }
        }
    }

    deinit { redisFree(context) }

    /// Sends `commands` as one pipeline and returns their replies in order. An error reply is a reply, not
    /// a failure; a failure leaves this connection unusable.
    func run(_ commands: [[Data]]) throws(RedisFailure) -> [RedisReply] {
        try run(RedisPipeline(commands))
    }

    /// Sends `pipeline` and returns its replies in order.
    func run(_ pipeline: RedisPipeline) throws(RedisFailure) -> [RedisReply] {
        let queued = pipeline.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { credis_append_formatted(context, $0.baseAddress, $0.count) }
        }
        guard queued == 0 else { throw .io("cannot queue a command") }
        // The reply pointers live on the stack for the exchange: no array per call.
        return try withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<redisReply>?.self, capacity: pipeline.count) {
            raw throws(RedisFailure) in
            let status = credis_exchange(
                context, writeTimeout, readTimeout, maxBulkLength, replyMemory?.pointer, &state, raw.count,
                raw.baseAddress)
            switch status {
            case CREDIS_OK: break
            case CREDIS_TIMEOUT: throw .timeout
            case CREDIS_PROTOCOL_ERROR: throw .io(context.pointee.err != 0 ? errorText : "protocol error")
            default: throw .io(context.pointee.err != 0 ? errorText : "I/O error")
            }
            // Each reply is owned by this loop from here: a string reply moves into a `RedisReplyBytes` (which
            // frees it); anything else is copied into Swift and freed here.
            return raw.map { reply in
                guard let reply else { return .null }
                if reply.pointee.type == REDIS_REPLY_STRING, reply.pointee.str != nil, reply.pointee.len > 0 {
                    return .buffer(RedisReplyBytes(taking: reply))
                }
                defer { credis_free_reply(reply) }
                return RedisReply(copying: reply)
            }
        }
    }

    private var errorText: String {
        withUnsafeBytes(of: context.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// Builds command argument lists.
enum RedisCommand {
    /// Text arguments as UTF-8.
    static func make(_ words: [String]) -> [Data] { words.map { Data($0.utf8) } }
    /// A command name and key, then binary arguments.
    static func make(_ name: String, _ key: Data, _ rest: Data...) -> [Data] { [Data(name.utf8), key] + rest }
}

/// Commands in RESP form (arrays of bulk strings), back to back: the bytes a pipeline sends. Built in one
/// buffer so a pipeline of sixteen GETs is one copy into hiredis's output buffer, not a format per command.
struct RedisPipeline {
    private(set) var bytes: [UInt8] = []
    /// Commands in `bytes`: the replies to read.
    private(set) var count = 0

    init() {}

    /// An empty pipeline with room for `capacity` bytes of commands (see ``getLength(prefix:key:)``), so
    /// a single GET is built in one allocation rather than several as the bytes grow.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    init(_ commands: [[Data]]) {
        bytes.reserveCapacity(commands.reduce(0) { $0 + 16 + $1.reduce(0) { $0 + $1.count + 24 } })
        for command in commands { append(command) }
    }

    mutating func append(_ arguments: [Data]) {
        appendHeader(UInt8(ascii: "*"), arguments.count)
        for argument in arguments {
            appendHeader(UInt8(ascii: "$"), argument.count)
            bytes.append(contentsOf: argument)
            bytes.append(13)
            bytes.append(10)
        }
        count += 1
    }

    private static let getArgument: [UInt8] = Array("$3\r\nGET\r\n".utf8)

    /// Bytes of ``appendGET(prefix:key:)``'s command, or a little more: its fixed parts and two counts of
    /// up to 20 digits each.
    static func getLength(prefix: String, key: String) -> Int {
        getArgument.count + prefix.utf8.count + key.utf8.count + 2 * (1 + 20 + 2) + 2
    }

    /// `GET prefix+key`, written straight from the strings' UTF-8.
    mutating func appendGET(prefix: String, key: String) {
        appendHeader(UInt8(ascii: "*"), 2)
        bytes.append(contentsOf: Self.getArgument)
        appendHeader(UInt8(ascii: "$"), prefix.utf8.count + key.utf8.count)
        bytes.append(contentsOf: prefix.utf8)
        bytes.append(contentsOf: key.utf8)
        bytes.append(13)
        bytes.append(10)
        count += 1
    }

    /// `*3\r\n`, `$20000\r\n`: a type byte, a decimal count, CRLF.
    private mutating func appendHeader(_ type: UInt8, _ count: Int) {
        bytes.append(type)
        bytes.append(contentsOf: String(count).utf8)
        bytes.append(13)
        bytes.append(10)
    }
}
