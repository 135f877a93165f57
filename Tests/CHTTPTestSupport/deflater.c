#include "CHTTPTestSupport.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// zlib's windowBits: 15 is a 32 KB window; adding 16 asks for a gzip header and trailer instead of zlib's.
enum { window_bits = 15, gzip_header_flag = 16, memory_level = 8 };
// Input is fed (and output drained) in pieces of this size, so zero-filled input never needs a large buffer.
enum { piece_size = 64 * 1024 };

struct ctest_deflater {
    z_stream stream;
};

ctest_deflater *ctest_deflater_new(ctest_wrapper wrapper, int level) {
    ctest_deflater *deflater = calloc(1, sizeof *deflater);
    if (!deflater) return NULL;
    int bits = wrapper == ctest_gzip ? window_bits + gzip_header_flag : window_bits;
    if (deflateInit2(&deflater->stream, level, Z_DEFLATED, bits, memory_level, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(deflater);
        return NULL;
    }
    return deflater;
}

static int drain(ctest_deflater *deflater, int flush,
                 void (*sink)(void *, const void *, size_t), void *context) {
    unsigned char out[piece_size];
    do {
        deflater->stream.next_out = out;
        deflater->stream.avail_out = sizeof out;
        int status = deflate(&deflater->stream, flush);
        if (status == Z_STREAM_ERROR) return -1;
        size_t produced = sizeof out - deflater->stream.avail_out;
        if (produced > 0) sink(context, out, produced);
    } while (deflater->stream.avail_out == 0);
    return 0;
}

int ctest_deflater_feed(ctest_deflater *deflater, const void *input, size_t count, int finish,
                        void (*sink)(void *, const void *, size_t), void *context) {
    static const unsigned char zeros[piece_size];
    const unsigned char *bytes = input;
    while (count > 0) {
        size_t piece = count < piece_size ? count : piece_size;
        deflater->stream.next_in = (unsigned char *)(bytes ? bytes : zeros);
        deflater->stream.avail_in = (uInt)piece;
        if (drain(deflater, Z_NO_FLUSH, sink, context) != 0) return -1;
        if (bytes) bytes += piece;
        count -= piece;
    }
    deflater->stream.next_in = NULL;
    deflater->stream.avail_in = 0;
    return drain(deflater, finish ? Z_FINISH : Z_SYNC_FLUSH, sink, context);
}

void ctest_deflater_free(ctest_deflater *deflater) {
    if (!deflater) return;
    deflateEnd(&deflater->stream);
    free(deflater);
}

uint32_t ctest_crc32_of_zeros(uint64_t count) {
    static const unsigned char zeros[piece_size];
    uLong piece_crc = crc32(0L, zeros, piece_size);
    uLong total = crc32(0L, Z_NULL, 0);
    for (; count >= piece_size; count -= piece_size) total = crc32_combine(total, piece_crc, piece_size);
    return (uint32_t)crc32(total, zeros, (uInt)count);
}
