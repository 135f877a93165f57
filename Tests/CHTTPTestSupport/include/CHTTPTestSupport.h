#ifndef CHTTPTESTSUPPORT_H
#define CHTTPTESTSUPPORT_H

// C helpers for the HTTP loader tests only: a TLS front for the plain-HTTP loopback server (OpenSSL's
// libssl), and a streaming compressor (zlib) for gzip/deflate bodies and decompression bombs.

#include <stddef.h>
#include <stdint.h>

// MARK: TLS front

/// A TLS server on 127.0.0.1 that completes each handshake, then relays the decrypted bytes to a plain
/// HTTP server on 127.0.0.1:backend_port and its answers back. One thread per connection.
typedef struct ctls_front ctls_front;

/// Starts a front with the PEM certificate chain and key. When client_ca_file is not NULL, clients must
/// present a certificate issued by one of its CAs. Returns NULL with a message in `error` on failure.
ctls_front *ctls_front_start(const char *chain_file, const char *key_file, const char *client_ca_file,
                             uint16_t backend_port, char *error, size_t error_size);
/// The port the front listens on.
uint16_t ctls_front_port(const ctls_front *front);
/// Handshakes that completed, and handshakes that failed, so far.
int ctls_front_handshakes_completed(ctls_front *front);
int ctls_front_handshakes_failed(ctls_front *front);
/// Waits until `count` handshakes ended (completed or failed), up to `timeout_ms`; 1 when they did.
int ctls_front_wait_for_handshakes(ctls_front *front, int count, int timeout_ms);
/// Stops accepting, closes every connection, waits for every thread, frees the front.
void ctls_front_stop(ctls_front *front);

// MARK: Compression

/// The wrapper around a deflate stream.
typedef enum { ctest_gzip = 0, ctest_zlib = 1 } ctest_wrapper;

/// A zlib deflate stream: feed it bytes, take compressed bytes back.
typedef struct ctest_deflater ctest_deflater;

ctest_deflater *ctest_deflater_new(ctest_wrapper wrapper, int level);
/// Compresses `count` bytes of `input` (or `count` zero bytes when input is NULL), flushing so that
/// everything fed so far can be decoded, and finishing the stream when `finish` is non-zero.
/// Calls `sink(context, bytes, length)` for each piece of output. Returns 0, or -1 on a zlib error.
int ctest_deflater_feed(ctest_deflater *deflater, const void *input, size_t count, int finish,
                        void (*sink)(void *context, const void *bytes, size_t length), void *context);
void ctest_deflater_free(ctest_deflater *deflater);
/// The CRC-32 (gzip's) of `count` zero bytes, without `count` bytes in memory.
uint32_t ctest_crc32_of_zeros(uint64_t count);

#endif
