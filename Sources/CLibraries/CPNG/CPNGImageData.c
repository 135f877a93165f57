// The direct image-data path of a whole-file decode (cpng_reader_decode_image_data): zlib inflates the
// IDAT chunks straight into the destination rows and CPNGUnfilter.c reconstructs them. libpng has already
// read everything before the first IDAT (header, colour chunks, metadata) and set up the reader; this
// path only replaces its row loop, whose byte-at-a-time Paeth filter was the largest cost of a PNG
// request after inflate itself.
//
// It takes only files libpng would decode without a transform, whose image data is followed by IEND and
// nothing else. Any surprise inside that data (a bad CRC, a damaged, short or long deflate stream, a bad
// filter type) ends it with CPNG_RETRY, and the caller decodes the file again with libpng alone, so such
// files keep libpng's exact behaviour.
#include "CPNGReader.h"
#include "CPNGUnfilter.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t big_endian_32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/// Walks the chunks from the first IDAT on, handing each IDAT's payload to zlib.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t next;        // offset of the next chunk to read
    z_stream zlib;
    int stream_ended;   // zlib saw the end of the deflate stream (and checked its Adler-32)
} image_data;

/// Points zlib at the next IDAT's payload after checking its CRC. Returns 0 when the next chunk is not
/// an intact IDAT (leaving `next` at it), 1 otherwise.
static int next_idat(image_data *d) {
    if (d->next + 8 > d->size) return 0;
    const uint8_t *chunk = d->data + d->next;
    uint32_t length = big_endian_32(chunk);
    if (memcmp(chunk + 4, "IDAT", 4) != 0 || length > 0x7fffffffu) return 0;
    if ((size_t)length + 12 > d->size - d->next) return 0;
    uLong crc = crc32(crc32(0L, chunk + 4, 4), chunk + 8, (uInt)length);
    if (crc != big_endian_32(chunk + 8 + length)) return 0;
    d->zlib.next_in = (Bytef *)(chunk + 8);
    d->zlib.avail_in = (uInt)length;
    d->next += (size_t)length + 12;
    return 1;
}

/// One inflate call, first pointing zlib at the next IDAT when it has used up the last one. Returns 0
/// when the stream is damaged or the image data ran out.
static int inflate_step(image_data *d) {
    if (d->zlib.avail_in == 0 && !next_idat(d)) return 0;
    int code = inflate(&d->zlib, Z_NO_FLUSH);
    if (code == Z_STREAM_END) d->stream_ended = 1;
    return code == Z_OK || code == Z_STREAM_END || (code == Z_BUF_ERROR && d->zlib.avail_in == 0);
}

/// Inflates exactly `count` bytes into `out`. Returns 0 when the stream is damaged or ends first.
static int inflate_exactly(image_data *d, uint8_t *out, size_t count) {
    d->zlib.next_out = out;
    d->zlib.avail_out = (uInt)count;
    while (d->zlib.avail_out > 0) {
        if (d->stream_ended || !inflate_step(d)) return 0;
    }
    return 1;
}

/// After the last row: the deflate stream must end with no further output, no bytes left over and no
/// IDAT after it (what follows is the IEND `is_plain_image_data` checked).
static int ends_cleanly(image_data *d) {
    uint8_t extra;
    while (!d->stream_ended) {
        d->zlib.next_out = &extra;
        d->zlib.avail_out = 1;
        if (!inflate_step(d) || d->zlib.avail_out == 0) return 0;  // damaged, or more image data than rows
    }
    return d->zlib.avail_in == 0 && d->size - d->next == 12;
}

/// Whether the chunks from `data` on are IDATs and then an intact IEND that ends the data, judged from the
/// IDATs' lengths and types (their CRCs are checked as the data is decoded). Other files (a truncated one,
/// metadata or animation chunks after the image, bytes after IEND) are left to libpng from the start, so
/// they are not decoded twice.
static int is_plain_image_data(const uint8_t *data, size_t size) {
    size_t at = 0;
    while (at + 8 <= size && memcmp(data + at + 4, "IDAT", 4) == 0) {
        uint32_t length = big_endian_32(data + at);
        if (length > 0x7fffffffu || (size_t)length + 12 > size - at) return 0;
        at += (size_t)length + 12;
    }
    static const uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    return at > 0 && size - at == 12 && memcmp(data + at, iend, 12) == 0;
}

/// Asks the stop check every CPNG_ROWS_PER_STOP_CHECK rows, as the libpng row callback does.
static int should_stop(cpng_reader *r) {
    if (!r->stop || ++r->rows_since_check < CPNG_ROWS_PER_STOP_CHECK) return 0;
    r->rows_since_check = 0;
    if (!r->stop(r->stop_context)) return 0;
    r->state.code = CPNG_STOPPED;
    snprintf(r->state.message, sizeof r->state.message, "stopped (deadline or cancellation)");
    return 1;
}

int cpng_reader_decode_image_data(cpng_reader *r, const uint8_t *data, size_t size) {
    if (r->state.code != CPNG_OK) return r->state.code;
    if (!r->state.header_done || r->state.rows != 0 || !r->untransformed) return CPNG_DECLINED;
    if (!r->state.streaming && !r->state.pixels) return CPNG_DECLINED;
    if (!is_plain_image_data(data, size)) return CPNG_DECLINED;
    size_t row_bytes = (size_t)r->state.width * (size_t)r->state.channels;
    int height = r->state.height;
    // Streamed rows are reconstructed in two rows of our own (the row and the one above); a whole
    // image in place, with a row of zeros above the first.
    uint8_t *scratch = calloc(r->state.streaming ? 2 * row_bytes : row_bytes, 1);
    if (!scratch) return CPNG_DECLINED;
    image_data d = {.data = data, .size = size};
    if (inflateInit2(&d.zlib, 15) != Z_OK) {
        free(scratch);
        return CPNG_DECLINED;
    }
    int result = CPNG_RETRY;
    uint8_t *above = scratch;
    uint8_t *spare = r->state.streaming ? scratch + row_bytes : NULL;
    for (int y = 0; y < height; y++) {
        uint8_t filter;
        uint8_t *row = r->state.streaming ? spare : r->state.pixels + (size_t)y * row_bytes;
        if (!inflate_exactly(&d, &filter, 1) || !inflate_exactly(&d, row, row_bytes)) goto done;
        if (!cpng_unfilter_row(filter, row, above, row_bytes, r->state.channels)) goto done;
        if (r->state.streaming) {
            r->sink(r->sink_context, row, y);
            spare = above;
        }
        above = row;
        r->state.rows++;
        if (should_stop(r)) {
            result = CPNG_STOPPED;
            goto done;
        }
    }
    if (!ends_cleanly(&d)) goto done;
    r->state.finished = 1;
    result = CPNG_OK;
done:
    inflateEnd(&d.zlib);
    free(scratch);
    return result;
}
