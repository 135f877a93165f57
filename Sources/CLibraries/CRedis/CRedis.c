#include "CRedis.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <zlib.h>

/// Read-buffer capacity a connection keeps between replies: a 16-deep pipeline of 20 KB images plus one
/// read chunk, so steady traffic reuses one buffer; a larger value's buffer is released after it.
#define CREDIS_READER_KEEP (1024 * 1024)

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/// Waits until `fd` is ready for `events` or `deadline` (monotonic ms) passes. CREDIS_OK when ready.
static credis_status wait_ready(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return CREDIS_TIMEOUT;
        struct pollfd pfd = { .fd = fd, .events = events, .revents = 0 };
        int n = poll(&pfd, 1, (int)left);
        if (n > 0) return CREDIS_OK; // errors and hang-ups surface in the read or write that follows
        if (n == 0) return CREDIS_TIMEOUT;
        if (errno != EINTR) return CREDIS_IO_ERROR;
    }
}

redisContext *credis_connect(const char *host, int port, int timeout_ms, char *error, size_t error_length) {
    redisContext *context = redisConnectNonBlock(host, port);
    if (context == NULL) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    if (context->err) {
        snprintf(error, error_length, "%s", context->errstr);
        redisFree(context);
        return NULL;
    }
    int64_t deadline = now_ms() + timeout_ms;
    credis_status status = wait_ready(context->fd, POLLOUT, deadline);
    if (status != CREDIS_OK) {
        snprintf(error, error_length, status == CREDIS_TIMEOUT ? "connect timed out" : "poll failed: %s",
                 strerror(errno));
        redisFree(context);
        return NULL;
    }
    int socket_error = 0;
    socklen_t length = sizeof socket_error;
    if (getsockopt(context->fd, SOL_SOCKET, SO_ERROR, &socket_error, &length) != 0 || socket_error != 0) {
        snprintf(error, error_length, "connect failed: %s", strerror(socket_error ? socket_error : errno));
        redisFree(context);
        return NULL;
    }
    // hiredis frees its read buffer whenever it empties with more than 16 KB spare, so every large reply
    // grows a fresh buffer (past glibc's mmap threshold: page faults on every pipeline). Keep up to
    // CREDIS_READER_KEEP per connection instead.
    context->reader->maxbuf = CREDIS_READER_KEEP;
    return context;
}

int credis_append(redisContext *context, int argc, const char **argv, const size_t *argv_length) {
    return redisAppendCommandArgv(context, argc, argv, argv_length) == REDIS_OK ? 0 : -1;
}

/// Bytes read per recv(): large values (20 KB images, 16 of them per pipeline) arrive in a few calls
/// instead of hiredis's 16 KB each, and a read is tried before poll() since pipelined replies are usually
/// already waiting in the socket.
#define CREDIS_READ_CHUNK (64 * 1024)

/// Reads what the socket has into the context's reader, waiting (until `deadline`) only when it has
/// nothing.
static credis_status read_some(redisContext *context, int64_t deadline) {
    char buffer[CREDIS_READ_CHUNK];
    for (;;) {
        ssize_t n = recv(context->fd, buffer, sizeof buffer, 0);
        if (n > 0) {
            return redisReaderFeed(context->reader, buffer, (size_t)n) == REDIS_OK ? CREDIS_OK : CREDIS_PROTOCOL_ERROR;
        }
        if (n == 0) return CREDIS_IO_ERROR; // the server closed the connection
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return CREDIS_IO_ERROR;
        credis_status status = wait_ready(context->fd, POLLIN, deadline);
        if (status != CREDIS_OK) return status;
    }
}

static void free_replies(size_t count, redisReply **replies) {
    for (size_t i = 0; i < count; i++) {
        if (replies[i] != NULL) freeReplyObject(replies[i]);
        replies[i] = NULL;
    }
}

credis_status credis_exchange(redisContext *context, int write_timeout_ms, int read_timeout_ms,
                              size_t count, redisReply **replies) {
    for (size_t i = 0; i < count; i++) replies[i] = NULL;
    if (context->err) return CREDIS_IO_ERROR;

    int64_t write_deadline = now_ms() + write_timeout_ms;
    int done = 0;
    while (!done) {
        if (redisBufferWrite(context, &done) != REDIS_OK) return CREDIS_IO_ERROR;
        if (done) break;
        credis_status status = wait_ready(context->fd, POLLOUT, write_deadline);
        if (status != CREDIS_OK) return status;
    }

    int64_t read_deadline = now_ms() + read_timeout_ms;
    for (size_t i = 0; i < count; i++) {
        for (;;) {
            void *reply = NULL;
            if (redisGetReplyFromReader(context, &reply) != REDIS_OK) {
                free_replies(count, replies);
                return CREDIS_PROTOCOL_ERROR;
            }
            if (reply != NULL) {
                replies[i] = reply;
                break;
            }
            credis_status status = read_some(context, read_deadline);
            if (status != CREDIS_OK) {
                free_replies(count, replies);
                return status;
            }
        }
    }
    return CREDIS_OK;
}

uint32_t credis_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    // zlib takes lengths as uInt (32 bits); feed larger buffers in pieces.
    while (length > 0) {
        uInt piece = length > 0x40000000u ? 0x40000000u : (uInt)length;
        crc = (uint32_t)crc32(crc, bytes, piece);
        bytes += piece;
        length -= piece;
    }
    return crc;
}
