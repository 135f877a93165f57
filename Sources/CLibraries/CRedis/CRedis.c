#include "CRedisInternal.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/sds.h>
#include <isa-l/crc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <zlib.h>

int64_t credis_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

credis_status credis_wait_ready(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - credis_now_ms();
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
    int64_t deadline = credis_now_ms() + timeout_ms;
    credis_status status = credis_wait_ready(context->fd, POLLOUT, deadline);
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
    // A receive buffer that holds a whole pipeline of images: with the default one the server can send
    // about 64 KB before it must wait for this side to read and open the window again, so sixteen 20 KB
    // values arrive in five bursts and the caller sleeps and wakes up five times. Best effort: the
    // kernel caps it at net.core.rmem_max, and a failure leaves the default.
    int receive_buffer = CREDIS_RECEIVE_BUFFER;
    (void)setsockopt(context->fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    return context;
}

int credis_append_formatted(redisContext *context, const char *commands, size_t length) {
    return redisAppendFormattedCommand(context, commands, length) == REDIS_OK ? 0 : -1;
}

static void free_replies(size_t count, redisReply **replies) {
    for (size_t i = 0; i < count; i++) {
        credis_free_reply(replies[i]);
        replies[i] = NULL;
    }
}

int credis_use_blocking_reads(redisContext *context, int read_timeout_ms) {
    if (context->err || read_timeout_ms <= 0) return -1;
    struct timeval timeout = { .tv_sec = read_timeout_ms / 1000, .tv_usec = (read_timeout_ms % 1000) * 1000 };
    if (setsockopt(context->fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) return -1;
    int flags = fcntl(context->fd, F_GETFL);
    if (flags < 0 || fcntl(context->fd, F_SETFL, flags & ~O_NONBLOCK) != 0) return -1;
    // hiredis's own name for "the socket blocks"; only this file's exchange reads it (it never calls
    // hiredis's blocking I/O, which would block without the deadline).
    context->flags |= REDIS_BLOCK;
    return 0;
}

/// Sends the context's queued commands by `deadline`: non-blocking sends (MSG_DONTWAIT whatever the
/// socket's mode), poll() while the socket's buffer is full.
static credis_status send_queued(redisContext *context, int64_t deadline) {
    size_t length = sdslen(context->obuf);
    size_t sent = 0;
    while (sent < length) {
        ssize_t n = send(context->fd, context->obuf + sent, length - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            credis_status status = credis_wait_ready(context->fd, POLLOUT, deadline);
            if (status != CREDIS_OK) return status;
            continue;
        }
        context->err = REDIS_ERR_IO;
        snprintf(context->errstr, sizeof context->errstr, "%s", n == 0 ? "send sent nothing" : strerror(errno));
        return CREDIS_IO_ERROR;
    }
    sdsrange(context->obuf, (int)length, -1);  // now empty; hiredis keeps the allocation for the next one
    return CREDIS_OK;
}

credis_status credis_exchange(redisContext *context, int write_timeout_ms, int read_timeout_ms, size_t max_bulk,
                              credis_block_pool *pool, size_t count, redisReply **replies) {
    for (size_t i = 0; i < count; i++) replies[i] = NULL;
    if (context->err) return CREDIS_IO_ERROR;

    credis_status status = send_queued(context, credis_now_ms() + write_timeout_ms);
    if (status != CREDIS_OK) return status;

    status = credis_read_replies(context, credis_now_ms() + read_timeout_ms, (context->flags & REDIS_BLOCK) != 0,
                                 max_bulk, pool, count, replies);
    if (status != CREDIS_OK) free_replies(count, replies);
    return status;
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

// MARK: - CRC-32C

/// CRC-32C's polynomial, bit-reversed.
#define CREDIS_CRC32C_POLY 0x82F63B78u

/// Filled once, by the first portable computation.
static uint32_t crc32c_table[256];
static pthread_once_t crc32c_table_once = PTHREAD_ONCE_INIT;

static void crc32c_fill_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ CREDIS_CRC32C_POLY : c >> 1;
        crc32c_table[n] = c;
    }
}

/// The CRC register after `length` bytes from register `c`, with no pre- or post-inversion.
static uint32_t crc32c_register_portable(uint32_t c, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_table_once, crc32c_fill_table);
    for (size_t i = 0; i < length; i++) c = crc32c_table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
    return c;
}

uint32_t credis_crc32c_portable(uint32_t crc, const uint8_t *bytes, size_t length) {
    return ~crc32c_register_portable(~crc, bytes, length);
}

uint32_t credis_crc32c(uint32_t crc, const uint8_t *bytes, size_t length) {
    // ISA-L's CRC-32C folds 64-byte blocks with carry-less multiplies (AVX-512 or SSE/NEON, picked at run
    // time). Its register convention is the complement of this one; it takes lengths as int, so larger
    // buffers go in pieces.
    while (length > 0) {
        int piece = length > 0x40000000u ? 0x40000000 : (int)length;
        crc = ~crc32_iscsi((unsigned char *)bytes, piece, ~crc);
        bytes += piece;
        length -= (size_t)piece;
    }
    return crc;
}
