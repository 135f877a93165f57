internal import CRedis
import Foundation

/// One RESP reply, copied out of hiredis's reply object so no C memory outlives the exchange.
enum RedisReply: Sendable, Equatable {
    /// A bulk string nested in an array (SCAN's keys), copied.
    case bulk(Data)
    /// A top-level bulk string (GET's value), still in hiredis's reply.
    case buffer(RedisReplyBytes)
    /// A status line such as `OK`.
    case status(String)
    /// An integer (DEL's count, EXISTS).
    case integer(Int)
    /// A nil bulk or array: the key does not exist.
    case null
    /// An error line from the server (`-ERR ...`, `-NOAUTH ...`).
    case error(String)
    /// An array (SCAN's cursor and keys).
    case array([RedisReply])

    /// Copies `reply`; the caller still frees it.
    init(copying reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            self = r.str.map { .bulk(Data(bytes: $0, count: r.len)) } ?? .bulk(Data())
        case REDIS_REPLY_STATUS:
            self = .status(r.str.map { String(cString: $0) } ?? "")
        case REDIS_REPLY_ERROR:
            self = .error(r.str.map { String(cString: $0) } ?? "")
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(r.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(r.elements)
            for index in 0..<r.elements {
                if let element = r.element[index] { elements.append(RedisReply(copying: element)) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    /// The bytes of a bulk string (a status line as UTF-8), nil otherwise.
    var bytes: Data? {
        switch self {
        case .bulk(let data): data
        case .buffer(let buffer): buffer.data(0..<buffer.count)
        case .status(let text): Data(text.utf8)
        default: nil
        }
    }
}
