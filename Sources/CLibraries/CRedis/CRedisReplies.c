// Reads RESP2 replies straight from a non-blocking socket into reply objects.
//
// hiredis's own reader copies every byte twice before a caller sees it (into its buffer on each feed,
// then into the reply's string) and moves the unread rest of its buffer to the front after each reply.
// For a pipeline of sixteen 20 KB images that is about a megabyte of memcpy per round trip. Here a bulk
// string's bytes go from the socket into the reply's own allocation: what an earlier read brought along
// is copied once, the rest lands in place.

#include "CRedisInternal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/// Longest first line of a reply (type byte, text or number, CRLF). Redis's status and error lines are
/// short; a longer line is a protocol error.
#define CREDIS_MAX_LINE 4096
/// Nesting allowed in arrays (SCAN's reply nests two).
#define CREDIS_MAX_DEPTH 8
/// Elements allowed in one array.
#define CREDIS_MAX_ELEMENTS (1 << 20)

/// The socket, its deadline and the bytes read past the reply being parsed.
typedef struct {
    redisContext *context;
    int64_t deadline;
    size_t max_bulk;
    credis_block_pool *pool;
    /// The connection's hint and spin (may be NULL).
    credis_connection_state *state;
    char *buffer;
    size_t capacity;
    size_t start;
    size_t end;
    /// The next receive may sleep in the kernel (a blocking socket, bounded by SO_RCVTIMEO): set for the
    /// first receive of an exchange only.
    int may_block;
    /// No receive of this exchange has brought anything yet (the server's turn).
    int first_wait;
    /// The last receive emptied the socket (it brought less than it had room for), so the next one polls
    /// first instead of failing with EAGAIN and then polling.
    int drained;
    /// While the first reply is read: a pool block sized for the bulk string expected (see
    /// credis_read_replies), which is `buffer` until then. NULL otherwise.
    char *block;
    int block_class;
    /// The stack buffer the stream moves to once the first reply is read.
    char *spare;
    size_t spare_capacity;
} reply_stream;

static credis_status fail(reply_stream *stream, int err, const char *message) {
    stream->context->err = err;
    snprintf(stream->context->errstr, sizeof stream->context->errstr, "%s", message);
    return err == REDIS_ERR_PROTOCOL ? CREDIS_PROTOCOL_ERROR : CREDIS_IO_ERROR;
}

/// Reads into `vectors` (the stream's buffer last), waiting until the socket has something or the
/// deadline passes. The number of bytes read in `*count`.
///
/// A request's reply is never there the moment it was sent, and a receive that brought less than it had
/// room for emptied the socket: in both cases the next receive would fail with EAGAIN, so it waits first:
/// a short spin when the connection spins (credis_spin_receive), then in the receive itself for the first
/// receive of an exchange on a blocking socket, in poll() otherwise.
static credis_status read_vectors(reply_stream *stream, struct iovec *vectors, int vector_count, size_t *count) {
    size_t room = 0;
    for (int i = 0; i < vector_count; i++) room += vectors[i].iov_len;
    int fd = stream->context->fd;
    for (;;) {
        struct msghdr message = { .msg_iov = vectors, .msg_iovlen = (size_t)vector_count };
        ssize_t n;
        credis_connection_state *state = stream->state;
        int waits = stream->may_block || stream->drained;
        if (waits && state != NULL &&
            credis_spin_receive(fd, &message, state->spin_limit_us,
                                stream->first_wait ? &state->first_wait : &state->later_waits, stream->deadline,
                                &n)) {
            stream->may_block = 0;
        } else if (stream->may_block) {
            stream->may_block = 0;
            n = recvmsg(fd, &message, 0);
        } else {
            if (stream->drained) {
                credis_status status = credis_wait_ready(fd, POLLIN, stream->deadline);
                if (status != CREDIS_OK) return status;
            }
            n = recvmsg(fd, &message, MSG_DONTWAIT);
        }
        stream->drained = 0;
        stream->first_wait = 0;
        if (n > 0) {
            *count = (size_t)n;
            stream->drained = (size_t)n < room;
            return CREDIS_OK;
        }
        if (n == 0) return fail(stream, REDIS_ERR_EOF, "server closed the connection");
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return fail(stream, REDIS_ERR_IO, strerror(errno));
        // Nothing yet (or SO_RCVTIMEO ran out, and the poll below sees the deadline has passed).
        stream->drained = 1;
    }
}

/// Moves the unread bytes to the front of the buffer and reads more after them.
static credis_status read_more(reply_stream *stream) {
    if (stream->start > 0) {
        memmove(stream->buffer, stream->buffer + stream->start, stream->end - stream->start);
        stream->end -= stream->start;
        stream->start = 0;
    }
    if (stream->end == stream->capacity) return fail(stream, REDIS_ERR_PROTOCOL, "reply line too long");
    struct iovec vector = { .iov_base = stream->buffer + stream->end, .iov_len = stream->capacity - stream->end };
    size_t count = 0;
    credis_status status = read_vectors(stream, &vector, 1, &count);
    stream->end += count;
    return status;
}

/// The next line without its CRLF, consumed from the stream; valid until the stream reads again.
static credis_status read_line(reply_stream *stream, const char **line, size_t *length) {
    size_t scanned = 0;
    for (;;) {
        const char *begin = stream->buffer + stream->start;
        size_t available = stream->end - stream->start;
        for (size_t i = scanned; i + 1 < available; i++) {
            if (begin[i] == '\r' && begin[i + 1] == '\n') {
                *line = begin;
                *length = i;
                stream->start += i + 2;
                return CREDIS_OK;
            }
        }
        scanned = available > 0 ? available - 1 : 0;
        if (available >= CREDIS_MAX_LINE) return fail(stream, REDIS_ERR_PROTOCOL, "reply line too long");
        credis_status status = read_more(stream);
        if (status != CREDIS_OK) return status;
    }
}

/// A RESP integer: an optional minus sign and 1 to 18 digits.
static int parse_integer(const char *text, size_t length, long long *value) {
    size_t i = 0;
    int negative = 0;
    if (length > 0 && text[0] == '-') {
        negative = 1;
        i = 1;
    }
    if (i == length || length - i > 18) return -1;
    long long result = 0;
    for (; i < length; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        result = result * 10 + (text[i] - '0');
    }
    *value = negative ? -result : result;
    return 0;
}

static credis_status read_crlf(reply_stream *stream);

/// Fills `destination` with the next `length` bytes: first what the buffer holds, then straight from the
/// socket (anything read past them goes to the buffer). Then consumes the CRLF that ends a bulk string.
static credis_status read_payload(reply_stream *stream, char *destination, size_t length) {
    size_t have = stream->end - stream->start;
    size_t copied = have < length ? have : length;
    memcpy(destination, stream->buffer + stream->start, copied);
    stream->start += copied;
    while (copied < length) {
        // The buffer is empty here: the rest of the payload goes in place, what follows it to the buffer.
        stream->start = stream->end = 0;
        struct iovec vectors[2] = {
            { .iov_base = destination + copied, .iov_len = length - copied },
            { .iov_base = stream->buffer, .iov_len = stream->capacity },
        };
        size_t count = 0;
        credis_status status = read_vectors(stream, vectors, 2, &count);
        if (status != CREDIS_OK) return status;
        if (count > length - copied) {
            stream->end = count - (length - copied);
            count = length - copied;
        }
        copied += count;
    }
    return read_crlf(stream);
}

/// Skips the next `length` bytes and the CRLF after them, reading through the buffer.
static credis_status discard_payload(reply_stream *stream, unsigned long long length) {
    for (;;) {
        size_t have = stream->end - stream->start;
        size_t skipped = (unsigned long long)have < length ? have : (size_t)length;
        stream->start += skipped;
        length -= skipped;
        if (length == 0) return read_crlf(stream);
        stream->start = stream->end = 0;
        credis_status status = read_more(stream);
        if (status != CREDIS_OK) return status;
    }
}

/// Consumes the CRLF that ends a bulk string.
static credis_status read_crlf(reply_stream *stream) {
    while (stream->end - stream->start < 2) {
        credis_status status = read_more(stream);
        if (status != CREDIS_OK) return status;
    }
    if (stream->buffer[stream->start] != '\r' || stream->buffer[stream->start + 1] != '\n') {
        return fail(stream, REDIS_ERR_PROTOCOL, "bulk string not followed by CRLF");
    }
    stream->start += 2;
    return CREDIS_OK;
}

static credis_status read_reply(reply_stream *stream, int depth, redisReply **result);

/// Every reply this reader makes: hiredis's reply, and where its string's memory came from. The
/// `redisReply` comes first, so a `redisReply *` handed out is also a `stored_reply *`.
typedef struct {
    redisReply reply;
    credis_block_pool *pool;
    /// The memory `reply.str` lies in (its start, or a few bytes before it for a string received in place).
    char *block;
    int block_class;
    /// Whether `checksum` holds the CRC-32C of the string past the connection's `checksum_skip` bytes.
    int has_checksum;
    uint32_t checksum;
} stored_reply;

/// A zeroed reply of `type` in `*reply`, or an out-of-memory failure.
static credis_status new_reply(reply_stream *stream, int type, redisReply **reply) {
    stored_reply *stored = calloc(1, sizeof *stored);
    if (stored == NULL) return fail(stream, REDIS_ERR_OOM, "out of memory");
    stored->block_class = -1;
    stored->reply.type = type;
    *reply = &stored->reply;
    return CREDIS_OK;
}

/// A reply of `type` (string, status or error) with room for a `length`-byte string plus its NUL.
static credis_status new_string_reply(reply_stream *stream, int type, size_t length, redisReply **reply) {
    credis_status status = new_reply(stream, type, reply);
    if (status != CREDIS_OK) return status;
    stored_reply *stored = (stored_reply *)*reply;
    stored->pool = stream->pool;
    stored->block = credis_block_take(stream->pool, length + 1, &stored->block_class);
    (*reply)->str = stored->block;
    if ((*reply)->str == NULL) {
        free(stored);
        *reply = NULL;  // the caller frees what it finds in its reply slots
        return fail(stream, REDIS_ERR_OOM, "out of memory");
    }
    (*reply)->len = length;
    (*reply)->str[length] = 0;
    return CREDIS_OK;
}

/// A reply with a string copied from `text` (status and error lines).
static credis_status make_text_reply(reply_stream *stream, int type, const char *text, size_t length,
                                     redisReply **result) {
    credis_status status = new_string_reply(stream, type, length, result);
    if (status == CREDIS_OK) memcpy((*result)->str, text, length);
    return status;
}

/// Moves the unread bytes from the first reply's block to the stack buffer, which the stream reads into
/// from then on, and gives the block back unless a reply took it.
static void leave_block(reply_stream *stream, int block_taken) {
    size_t unread = stream->end - stream->start;
    memcpy(stream->spare, stream->buffer + stream->start, unread);
    if (!block_taken) credis_block_give_back(stream->pool, stream->block, stream->block_class);
    stream->block = NULL;
    stream->buffer = stream->spare;
    stream->capacity = stream->spare_capacity;
    stream->start = 0;
    stream->end = unread;
}

/// Whether the bulk string of `length` bytes starting at the stream's position can stay in the block it
/// is being received into: the first reply, the whole string and its CRLF fit, and it fills at least half
/// the block (a much smaller value gets a block of its own size, as any other reply).
static int fits_block(const reply_stream *stream, int depth, long long length) {
    if (stream->block == NULL || depth != 0 || length <= 0) return 0;
    size_t room = stream->capacity - stream->start;
    return (unsigned long long)length + 2 <= room && (size_t)length * 2 >= stream->capacity;
}

/// The first reply's string, received where it will stay: the rest of its bytes are read into the block
/// after those already there, and the reply's string points into the block past the `$<length>` line.
/// Saves copying the value out of a receive buffer.
static credis_status read_bulk_in_block(reply_stream *stream, size_t length, redisReply **result) {
    size_t needed = stream->start + length + 2;
    while (stream->end < needed) {
        struct iovec vector = { .iov_base = stream->buffer + stream->end, .iov_len = stream->capacity - stream->end };
        size_t count = 0;
        credis_status status = read_vectors(stream, &vector, 1, &count);
        if (status != CREDIS_OK) return status;
        stream->end += count;
    }
    char *string = stream->buffer + stream->start;
    if (string[length] != '\r' || string[length + 1] != '\n') {
        return fail(stream, REDIS_ERR_PROTOCOL, "bulk string not followed by CRLF");
    }
    redisReply *reply;
    credis_status status = new_reply(stream, REDIS_REPLY_STRING, &reply);
    if (status != CREDIS_OK) return status;
    stored_reply *stored = (stored_reply *)reply;
    stored->pool = stream->pool;
    stored->block = stream->block;
    stored->block_class = stream->block_class;
    reply->str = string;
    reply->len = length;
    string[length] = 0;  // over the CR just checked
    stream->start += length + 2;
    leave_block(stream, 1);  // the reply owns the block now
    *result = reply;
    return CREDIS_OK;
}

/// Checksums a string reply just read when the connection asks for it (credis_connection_state's
/// `checksum_values`). Done here, between receives, the work overlaps with the server sending the rest of
/// a pipeline instead of following its last byte.
static void checksum_string(const reply_stream *stream, redisReply *reply) {
    const credis_connection_state *state = stream->state;
    if (state == NULL || !state->checksum_values || reply->len < state->checksum_skip) return;
    stored_reply *stored = (stored_reply *)reply;
    stored->checksum = credis_crc32c(0, (const uint8_t *)reply->str + state->checksum_skip,
                                     reply->len - state->checksum_skip);
    stored->has_checksum = 1;
}

static credis_status read_bulk(reply_stream *stream, long long length, int depth, redisReply **result) {
    if (length < 0) return fail(stream, REDIS_ERR_PROTOCOL, "bad bulk string length");
    // The second test only matters where size_t is 32 bits: room for the NUL must not wrap around.
    if ((unsigned long long)length > stream->max_bulk || (unsigned long long)length >= SIZE_MAX) {
        // Skipped, not kept: the caller gets an error reply and the connection stays in step.
        credis_status status = discard_payload(stream, (unsigned long long)length);
        if (status != CREDIS_OK) return status;
        static const char message[] = "ERR value longer than the client's limit";
        return make_text_reply(stream, REDIS_REPLY_ERROR, message, sizeof message - 1, result);
    }
    if (fits_block(stream, depth, length)) {
        credis_status status = read_bulk_in_block(stream, (size_t)length, result);
        if (status == CREDIS_OK) checksum_string(stream, *result);
        return status;
    }
    redisReply *reply;
    credis_status status = new_string_reply(stream, REDIS_REPLY_STRING, (size_t)length, &reply);
    if (status != CREDIS_OK) return status;
    status = read_payload(stream, reply->str, (size_t)length);
    if (status != CREDIS_OK) {
        credis_free_reply(reply);
        return status;
    }
    checksum_string(stream, reply);
    *result = reply;
    return CREDIS_OK;
}

static credis_status read_array(reply_stream *stream, long long count, int depth, redisReply **result) {
    if (count < 0 || count > CREDIS_MAX_ELEMENTS) return fail(stream, REDIS_ERR_PROTOCOL, "bad array length");
    if (depth >= CREDIS_MAX_DEPTH) return fail(stream, REDIS_ERR_PROTOCOL, "arrays nested too deep");
    redisReply *reply;
    credis_status status = new_reply(stream, REDIS_REPLY_ARRAY, &reply);
    if (status != CREDIS_OK) return status;
    redisReply **elements = count > 0 ? calloc((size_t)count, sizeof *elements) : NULL;
    if (count > 0 && elements == NULL) {
        credis_free_reply(reply);
        return fail(stream, REDIS_ERR_OOM, "out of memory");
    }
    reply->element = elements;
    reply->elements = (size_t)count;
    for (long long i = 0; i < count; i++) {
        status = read_reply(stream, depth + 1, &elements[i]);
        if (status != CREDIS_OK) {
            credis_free_reply(reply);
            return status;
        }
    }
    *result = reply;
    return CREDIS_OK;
}

static credis_status read_reply(reply_stream *stream, int depth, redisReply **result) {
    const char *line;
    size_t length;
    credis_status status = read_line(stream, &line, &length);
    if (status != CREDIS_OK) return status;
    if (length == 0) return fail(stream, REDIS_ERR_PROTOCOL, "empty reply line");
    char type = line[0];
    if (type == '+' || type == '-') {
        return make_text_reply(stream, type == '+' ? REDIS_REPLY_STATUS : REDIS_REPLY_ERROR, line + 1, length - 1,
                               result);
    }
    long long number;
    if (parse_integer(line + 1, length - 1, &number) != 0) {
        return fail(stream, REDIS_ERR_PROTOCOL, type == ':' || type == '$' || type == '*' ? "bad number in reply"
                                                                                          : "unknown reply type");
    }
    if ((type == '$' || type == '*') && number == -1) return new_reply(stream, REDIS_REPLY_NIL, result);
    switch (type) {
    case ':':
        status = new_reply(stream, REDIS_REPLY_INTEGER, result);
        if (status == CREDIS_OK) (*result)->integer = number;
        return status;
    case '$': return read_bulk(stream, number, depth, result);
    case '*': return read_array(stream, number, depth, result);
    default: return fail(stream, REDIS_ERR_PROTOCOL, "unknown reply type");
    }
}

credis_status credis_read_replies(redisContext *context, int64_t deadline, int blocking_first_read, size_t max_bulk,
                                  credis_block_pool *pool, credis_connection_state *state, size_t count,
                                  redisReply **replies) {
    char buffer[CREDIS_READ_BUFFER];
    // Right after the commands were sent nothing has come back yet: wait first (in the receive itself
    // when the socket blocks).
    reply_stream stream = { .context = context, .deadline = deadline, .max_bulk = max_bulk, .pool = pool, .state = state,
                            .buffer = buffer, .capacity = sizeof buffer, .start = 0, .end = 0,
                            .may_block = blocking_first_read != 0, .drained = 1, .first_wait = 1, .block = NULL,
                            .block_class = -1, .spare = buffer, .spare_capacity = sizeof buffer };
    // The first reply is likely a value of the size the last exchange's first reply had (a GET of an
    // image of similar size): receive into a block of that size plus its `$<length>` line, so the value
    // stays where the kernel wrote it instead of being copied out of the stack buffer.
    size_t hint = state != NULL ? state->bulk_hint : 0;
    if (pool != NULL && count > 0 && hint >= CREDIS_IN_PLACE_MIN && hint <= CREDIS_READ_BUFFER - CREDIS_BULK_ROOM) {
        size_t size = hint + CREDIS_BULK_ROOM;
        char *block = credis_block_take(pool, size, &stream.block_class);
        if (block != NULL) {
            stream.block = stream.buffer = block;
            stream.capacity = credis_block_capacity(stream.block_class, size);
        }
    }
    for (size_t i = 0; i < count; i++) {
        credis_status status = read_reply(&stream, 0, &replies[i]);
        if (stream.block != NULL) leave_block(&stream, 0);
        if (status != CREDIS_OK) return status;
        if (i == 0 && state != NULL && replies[0]->type == REDIS_REPLY_STRING) state->bulk_hint = replies[0]->len;
    }
    // Bytes past the last reply mean the stream and the commands disagree.
    if (stream.end != stream.start) return fail(&stream, REDIS_ERR_PROTOCOL, "bytes after the last reply");
    return CREDIS_OK;
}

int credis_reply_checksum(const redisReply *reply, uint32_t *checksum) {
    if (reply == NULL || reply->type != REDIS_REPLY_STRING) return 0;
    const stored_reply *stored = (const stored_reply *)reply;
    if (!stored->has_checksum) return 0;
    *checksum = stored->checksum;
    return 1;
}

void credis_free_reply(redisReply *reply) {
    if (reply == NULL) return;
    if (reply->type == REDIS_REPLY_ARRAY) {
        for (size_t i = 0; i < reply->elements; i++) credis_free_reply(reply->element[i]);
        free(reply->element);
    } else {
        stored_reply *stored = (stored_reply *)reply;
        credis_block_give_back(stored->pool, stored->block, stored->block_class);
    }
    free(reply);
}
