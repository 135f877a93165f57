#include "CRedisInternal.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/sds.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <zlib.h>

int64_t credis_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t credis_now_ms(void) { return credis_now_ns() / 1000000; }

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
                              credis_block_pool *pool, credis_connection_state *state, size_t count,
                              redisReply **replies) {
    for (size_t i = 0; i < count; i++) replies[i] = NULL;
    if (context->err) return CREDIS_IO_ERROR;

    credis_status status = send_queued(context, credis_now_ms() + write_timeout_ms);
    if (status != CREDIS_OK) return status;

    status = credis_read_replies(context, credis_now_ms() + read_timeout_ms, (context->flags & REDIS_BLOCK) != 0,
                                 max_bulk, pool, state, count, replies);
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

/// The CRC register after `length` bytes from register `c`, with no pre- or post-inversion: what the CPU
/// instruction computes.
static uint32_t crc32c_register_portable(uint32_t c, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_table_once, crc32c_fill_table);
    for (size_t i = 0; i < length; i++) c = crc32c_table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
    return c;
}

uint32_t credis_crc32c_portable(uint32_t crc, const uint8_t *bytes, size_t length) {
    return ~crc32c_register_portable(~crc, bytes, length);
}

/// Bytes each of three interleaved streams covers per round of the instruction path. The CRC32
/// instruction takes three cycles but can start one per cycle, so three independent streams run about
/// three times as fast as one; the streams are then joined by moving a register past the bytes after it.
#define CRC32C_STRIDE 256

/// `crc32c_shift_table[k][v]` is the register `v << 8k` after CRC32C_STRIDE zero bytes. Feeding zeros is
/// linear in the register, so four lookups move any register past CRC32C_STRIDE bytes.
static uint32_t crc32c_shift_table[4][256];

static void crc32c_fill_shift_table(void) {
    static const uint8_t zeros[CRC32C_STRIDE];
    uint32_t basis[32];
    for (int bit = 0; bit < 32; bit++) basis[bit] = crc32c_register_portable(1u << bit, zeros, CRC32C_STRIDE);
    for (int k = 0; k < 4; k++) {
        for (uint32_t v = 0; v < 256; v++) {
            uint32_t moved = 0;
            for (int bit = 0; bit < 8; bit++) {
                if (v & (1u << bit)) moved ^= basis[8 * k + bit];
            }
            crc32c_shift_table[k][v] = moved;
        }
    }
}

/// Register `c` moved past CRC32C_STRIDE bytes (what the register of a stream ahead contributes).
static inline uint32_t crc32c_shift(uint32_t c) {
    return crc32c_shift_table[0][c & 0xFF] ^ crc32c_shift_table[1][(c >> 8) & 0xFF] ^
           crc32c_shift_table[2][(c >> 16) & 0xFF] ^ crc32c_shift_table[3][c >> 24];
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_instruction(uint32_t crc, const uint8_t *bytes, size_t length) {
    uint64_t c = ~crc;
    while (length >= 3 * CRC32C_STRIDE) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < CRC32C_STRIDE; i += 8) {
            uint64_t wa, wb, wd;
            memcpy(&wa, bytes + i, 8);
            memcpy(&wb, bytes + CRC32C_STRIDE + i, 8);
            memcpy(&wd, bytes + 2 * CRC32C_STRIDE + i, 8);
            a = _mm_crc32_u64(a, wa);
            b = _mm_crc32_u64(b, wb);
            d = _mm_crc32_u64(d, wd);
        }
        c = crc32c_shift(crc32c_shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)d;
        bytes += 3 * CRC32C_STRIDE;
        length -= 3 * CRC32C_STRIDE;
    }
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
    while (length >= 3 * CRC32C_STRIDE) {
        uint32_t a = crc, b = 0, d = 0;
        for (size_t i = 0; i < CRC32C_STRIDE; i += 8) {
            uint64_t wa, wb, wd;
            memcpy(&wa, bytes + i, 8);
            memcpy(&wb, bytes + CRC32C_STRIDE + i, 8);
            memcpy(&wd, bytes + 2 * CRC32C_STRIDE + i, 8);
            a = __crc32cd(a, wa);
            b = __crc32cd(b, wb);
            d = __crc32cd(d, wd);
        }
        crc = crc32c_shift(crc32c_shift(a) ^ b) ^ d;
        bytes += 3 * CRC32C_STRIDE;
        length -= 3 * CRC32C_STRIDE;
    }
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

static void crc32c_setup(void) {
    crc32c_uses_instruction = crc32c_has_instruction();
    if (crc32c_uses_instruction) crc32c_fill_shift_table();
}

uint32_t credis_crc32c(uint32_t crc, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_setup_once, crc32c_setup);
    return crc32c_uses_instruction ? crc32c_instruction(crc, bytes, length) : credis_crc32c_portable(crc, bytes, length);
}
