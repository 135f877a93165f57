#ifndef CREDIS_INTERNAL_H
#define CREDIS_INTERNAL_H

// Shared by the C files of this target; not part of the module Swift imports.

#include "CRedis.h"

#include <poll.h>
#include <stdint.h>

/// Bytes of socket data held between replies while parsing: replies' first lines and whatever a read
/// brings past the bulk string being filled.
#define CREDIS_READ_BUFFER (64 * 1024)

/// The monotonic clock in milliseconds.
int64_t credis_now_ms(void);

/// Waits until `fd` is ready for `events` or `deadline` (monotonic ms) passes. CREDIS_OK when ready.
credis_status credis_wait_ready(int fd, short events, int64_t deadline);

/// Reads `count` replies from the context's socket by `deadline` (CRedisReplies.c), refusing bulk
/// strings longer than `max_bulk`. On failure the replies read so far stay in `replies` for the caller
/// to free, and the context's `err` and `errstr` say why.
credis_status credis_read_replies(redisContext *context, int64_t deadline, size_t max_bulk, size_t count,
                                  redisReply **replies);

#endif
