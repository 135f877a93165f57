#ifndef CREDIS_H
#define CREDIS_H

// hiredis for Swift, with deadlines. hiredis's blocking mode bounds each read() and write() by a socket
// timeout, so a server that trickles bytes can hold a caller far longer than the timeout; these
// functions keep the context non-blocking and poll() against one deadline per phase (connect, write all
// pending commands, read all replies), so no call lasts longer than the time it was given.
//
// Ownership: a context from credis_connect is freed with redisFree by its one owner; replies are freed
// with credis_free_reply by whoever receives them.

#include <hiredis/hiredis.h>
#include <stddef.h>
#include <stdint.h>

/// What a deadline-bounded call ended with.
typedef enum {
    CREDIS_OK = 0,
    /// The socket failed or the server closed the connection.
    CREDIS_IO_ERROR = -1,
    /// The deadline passed first.
    CREDIS_TIMEOUT = -2,
    /// The server sent bytes that are not RESP.
    CREDIS_PROTOCOL_ERROR = -3,
} credis_status;

/// Connects to host:port within `timeout_ms`, leaving the context non-blocking. NULL on failure, with
/// the reason in `error` (NUL-terminated, at most `error_length` bytes). Host names are resolved by
/// getaddrinfo before the deadline starts.
redisContext *credis_connect(const char *host, int port, int timeout_ms, char *error, size_t error_length);

/// Queues commands already in RESP form (arrays of bulk strings, back to back) in the context's output
/// buffer. 0 on success.
int credis_append_formatted(redisContext *context, const char *commands, size_t length);

/// Makes the context's socket blocking with receives bounded by `read_timeout_ms` (SO_RCVTIMEO), so
/// that credis_exchange waits for the first bytes of its replies in one receive call instead of a failed
/// read, a poll() and a second read: half the system calls of a single GET. Every other send and receive
/// stays non-blocking (MSG_DONTWAIT) and polls against the deadline, so no exchange lasts longer than it
/// did before. Pass the same `read_timeout_ms` to every credis_exchange on this context. 0 on success;
/// on failure the context may still be used as it was.
int credis_use_blocking_reads(redisContext *context, int read_timeout_ms);

/// Memory kept for the strings of large replies, shared by any number of connections and threads.
/// Blocks come back to it when their replies are freed, and it keeps up to a limit of them for later
/// replies, so a steady stream of pipelined values does not make malloc return pages to the kernel and
/// fault them in again on every round trip.
typedef struct credis_block_pool credis_block_pool;

/// A pool that keeps at most `retained_limit` bytes of blocks nobody uses. NULL when out of memory.
credis_block_pool *credis_block_pool_create(size_t retained_limit);

/// Drops the creator's reference; the pool's memory is freed once every reply using it is freed too.
void credis_block_pool_release(credis_block_pool *pool);

/// Bytes of unused blocks the pool keeps now.
size_t credis_block_pool_retained(credis_block_pool *pool);

/// How often a connection spins for one kind of wait (see credis_connection_state's `spin_limit_us`).
typedef struct {
    /// Waits skipped after the last window that ran out (0, 1, 3, 7, ... 63), and waits left to skip.
    uint32_t backoff;
    uint32_t skip;
} credis_spin_window;

/// What one connection carries from one exchange to the next. Zero it before the first exchange and set
/// `spin_limit_us` (and the checksum fields); credis_exchange keeps the rest.
typedef struct {
    /// The length of the last exchange's first reply when it was a bulk string: the first reply, when a
    /// bulk string of about that length (2 to 64 KB), is received straight into its block and never copied.
    size_t bulk_hint;
    /// How long, in microseconds, a wait for reply bytes keeps asking the socket (yielding the CPU to any
    /// other runnable thread between tries) before it sleeps in the kernel; 0 never spins. A reply from a
    /// nearby server comes back in tens of microseconds, and waking a CPU that went idle costs about as
    /// much again (more on a virtual machine). After a window that runs out the connection skips spinning
    /// for the next 1, 3, 7, ... up to 63 waits of that kind, and starts again after a window that catches
    /// its bytes. The first wait of an exchange (the server's whole turn) and the waits for the rest of a
    /// long reply (bytes already on their way) are counted apart: one missing says nothing of the other.
    uint32_t spin_limit_us;
    credis_spin_window first_wait;
    credis_spin_window later_waits;
    /// When not 0, every string reply of at least `checksum_skip` bytes gets the CRC-32C of its bytes past
    /// the first `checksum_skip` (credis_reply_checksum), computed as soon as the reply is in: for a
    /// pipeline, while the server is still sending the replies after it.
    int checksum_values;
    size_t checksum_skip;
} credis_connection_state;

/// Writes every queued command within `write_timeout_ms`, then reads `count` replies into `replies`
/// within `read_timeout_ms`. A bulk string longer than `max_bulk` bytes is skipped and becomes an error
/// reply, so a server cannot make the client allocate without bound. Replies are read by this library's
/// own RESP2 parser straight from the socket (hiredis's reader copies each value twice); strings of
/// 2 KB or longer are placed in blocks of `pool` when it is not NULL. `state` (may be NULL) is the
/// connection's: its reply-size hint and its spin (see credis_connection_state). Free replies with
/// credis_free_reply. On anything but CREDIS_OK every reply already read is freed and `replies` holds
/// NULLs: the connection is then in an unknown state and must be freed.
credis_status credis_exchange(redisContext *context, int write_timeout_ms, int read_timeout_ms, size_t max_bulk,
                              credis_block_pool *pool, credis_connection_state *state, size_t count,
                              redisReply **replies);

/// The CRC-32C that credis_exchange computed for a string reply (credis_connection_state's
/// `checksum_values`): 1 with it in `*checksum`, 0 when none was computed.
int credis_reply_checksum(const redisReply *reply, uint32_t *checksum);

/// Frees a reply from credis_exchange (and its elements or string; a pooled string goes back to its
/// pool). NULL is ignored.
void credis_free_reply(redisReply *reply);

/// zlib's CRC-32 of `length` bytes (the checksum of values stored by the first envelope layout, WIR1).
uint32_t credis_crc32(uint32_t crc, const uint8_t *bytes, size_t length);

/// CRC-32C (Castagnoli) of `length` bytes, continuing from `crc` (0 to start): the checksum stored with
/// each cached value. Uses the CPU's CRC32 instruction (SSE 4.2, ARMv8 CRC) on three interleaved streams
/// when it has one, about 14-18 GB/s on 20 KB values (zlib's CRC-32: about 2 GB/s); a table otherwise.
uint32_t credis_crc32c(uint32_t crc, const uint8_t *bytes, size_t length);

/// The same CRC-32C from a table, one byte at a time: what `credis_crc32c` uses without the instruction.
uint32_t credis_crc32c_portable(uint32_t crc, const uint8_t *bytes, size_t length);

#endif
