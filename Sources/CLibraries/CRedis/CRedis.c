#include "CRedis.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <zlib.h>

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
    return context;
}

int credis_append(redisContext *context, int argc, const char **argv, const size_t *argv_length) {
    return redisAppendCommandArgv(context, argc, argv, argv_length) == REDIS_OK ? 0 : -1;
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
            credis_status status = wait_ready(context->fd, POLLIN, read_deadline);
            if (status != CREDIS_OK) {
                free_replies(count, replies);
                return status;
            }
            if (redisBufferRead(context) != REDIS_OK) {
                free_replies(count, replies);
                return CREDIS_IO_ERROR;
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
