#ifndef CREDIS_INTERNAL_H
#define CREDIS_INTERNAL_H

// Shared by the C files of this target; not part of the module Swift imports.

#include "CRedis.h"

#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/// Bytes of socket data held between replies while parsing: replies' first lines and whatever a read
/// brings past the bulk string being filled.
#define CREDIS_READ_BUFFER (64 * 1024)

/// Room in a first reply's block beyond the value expected: its `$<length>` line (at most 20 digits), the
/// CRLF after the value, and a little of whatever follows.
#define CREDIS_BULK_ROOM 64

/// Smallest value received in place (see credis_read_replies): smaller ones are cheap to copy, and the
/// pool hands out blocks from 2 KB.
#define CREDIS_IN_PLACE_MIN 2048

/// Receive buffer asked for each connection (SO_RCVBUF; the kernel doubles it for its bookkeeping):
/// room for a 16-deep pipeline of 20 KB values and more.
#define CREDIS_RECEIVE_BUFFER (512 * 1024)

/// The monotonic clock in milliseconds, and in nanoseconds.
int64_t credis_now_ms(void);
int64_t credis_now_ns(void);

/// Waits until `fd` is ready for `events` or `deadline` (monotonic ms) passes. CREDIS_OK when ready.
credis_status credis_wait_ready(int fd, short events, int64_t deadline);

/// Reads `count` replies from the context's socket by `deadline` (CRedisReplies.c), refusing bulk
/// strings longer than `max_bulk` and placing large strings in `pool` (may be NULL). On failure the
/// replies read so far stay in `replies` for the caller to free, and the context's `err` and `errstr`
/// say why. With `blocking_first_read` (a blocking socket whose SO_RCVTIMEO is at most the time to
/// `deadline`, see credis_use_blocking_reads), the first receive sleeps in the kernel instead of
/// polling; every other receive is non-blocking. Each wait may first spin (`state`'s spin, see
/// credis_spin_receive). `state->bulk_hint` (`state` may be NULL) is the length of the bulk string
/// expected first: when `pool` is given and it is 2 KB to 64 KB, the first receive goes into a block of
/// that size, and a first reply that fits stays there (no copy). It is set to the first reply's length
/// when that reply is a bulk string.
credis_status credis_read_replies(redisContext *context, int64_t deadline, int blocking_first_read, size_t max_bulk,
                                  credis_block_pool *pool, credis_connection_state *state, size_t count,
                                  redisReply **replies);

/// Spins for reply bytes (CRedisSpin.c): non-blocking receives into `message`, yielding the CPU between
/// tries, for up to `limit_us` and never past `deadline` (monotonic ms), unless `window` says to skip
/// this wait. 1 when a receive ended the spin, with its result (bytes, 0 at end of stream, or -1 with
/// `errno`) in `*result`; 0 when the connection does not spin this time or the window ran out, and the
/// caller waits as usual.
int credis_spin_receive(int fd, struct msghdr *message, uint32_t limit_us, credis_spin_window *window,
                        int64_t deadline, ssize_t *result);

/// `size` bytes from a block of `pool` (CRedisBlockPool.c), or from malloc when `pool` is NULL or the
/// size is outside its classes; `*class_index` records which, for credis_block_give_back. NULL when
/// out of memory.
void *credis_block_take(credis_block_pool *pool, size_t size, int *class_index);

/// The usable bytes of a block from credis_block_take for `requested` bytes in class `class_index`: the
/// class's size, at most CREDIS_READ_BUFFER (and `requested` for malloc'd memory).
size_t credis_block_capacity(int class_index, size_t requested);

/// Returns memory from credis_block_take: to the pool (or free, past its limit) or to malloc.
void credis_block_give_back(credis_block_pool *pool, void *block, int class_index);

#endif
