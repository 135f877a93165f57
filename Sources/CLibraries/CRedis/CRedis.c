#include "CRedis.h"

#include <errno.h>
#include <pthread.h>
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

uint32_t credis_crc32c_portable(uint32_t crc, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_table_once, crc32c_fill_table);
    crc = ~crc;
    for (size_t i = 0; i < length; i++) crc = crc32c_table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_instruction(uint32_t crc, const uint8_t *bytes, size_t length) {
    uint64_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        c = _mm_crc32_u64(c, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length-- > 0) c32 = _mm_crc32_u8(c32, *bytes++);
    return ~c32;
}

static int crc32c_has_instruction(void) { return __builtin_cpu_supports("sse4.2"); }

#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#include <asm/hwcap.h>

__attribute__((target("+crc")))
static uint32_t crc32c_instruction(uint32_t crc, const uint8_t *bytes, size_t length) {
    crc = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length-- > 0) crc = __crc32cb(crc, *bytes++);
    return ~crc;
}

static int crc32c_has_instruction(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }

#else
static uint32_t crc32c_instruction(uint32_t crc, const uint8_t *bytes, size_t length) {
    return credis_crc32c_portable(crc, bytes, length);
}
static int crc32c_has_instruction(void) { return 0; }
#endif

static int crc32c_uses_instruction = 0;
static pthread_once_t crc32c_setup_once = PTHREAD_ONCE_INIT;

static void crc32c_setup(void) { crc32c_uses_instruction = crc32c_has_instruction(); }

uint32_t credis_crc32c(uint32_t crc, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_setup_once, crc32c_setup);
    return crc32c_uses_instruction ? crc32c_instruction(crc, bytes, length) : credis_crc32c_portable(crc, bytes, length);
}
