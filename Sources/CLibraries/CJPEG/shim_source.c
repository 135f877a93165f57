#include "shim_source.h"
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    shim_source *src = (shim_source *)cinfo->src;
    // Suspend: next_input_byte and bytes_in_buffer stay on the unconsumed bytes.
    if (!src->end_of_data) return FALSE;
    // The data ended early: like libjpeg's own sources, finish with a fake EOI so the rest decodes gray.
    static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = fake_eoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    shim_source *src = (shim_source *)cinfo->src;
    if (count <= 0) return;
    size_t n = (size_t)count;
    if (n > src->pub.bytes_in_buffer) {
        // skip_input_data cannot suspend: skip what has arrived and drop the rest as it comes.
        src->skip_pending += n - src->pub.bytes_in_buffer;
        n = src->pub.bytes_in_buffer;
    }
    src->pub.next_input_byte += n;
    src->pub.bytes_in_buffer -= n;
}

void shim_source_install(j_decompress_ptr cinfo, shim_source *src) {
    src->pub.init_source = init_source;
    src->pub.fill_input_buffer = fill_input_buffer;
    src->pub.skip_input_data = skip_input_data;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = term_source;
    src->pub.next_input_byte = NULL;
    src->pub.bytes_in_buffer = 0;
    cinfo->src = &src->pub;
}

int shim_source_append(shim_source *src, const uint8_t *data, size_t size) {
    size_t dropped = size < src->skip_pending ? size : src->skip_pending;
    data += dropped; size -= dropped; src->skip_pending -= dropped;
    size_t kept = src->pub.bytes_in_buffer;
    if (kept + size > src->capacity) {
        size_t capacity = src->capacity * 2 > kept + size ? src->capacity * 2 : kept + size;
        if (capacity < 4096) capacity = 4096;
        uint8_t *grown = malloc(capacity);
        if (!grown) return 0;
        if (kept) memcpy(grown, src->pub.next_input_byte, kept);
        free(src->owned);
        src->owned = grown;
        src->capacity = capacity;
    } else if (kept && src->pub.next_input_byte != src->owned) {
        memmove(src->owned, src->pub.next_input_byte, kept);  // drop the consumed prefix
    }
    if (size) memcpy(src->owned + kept, data, size);
    src->pub.next_input_byte = src->owned;
    src->pub.bytes_in_buffer = kept + size;
    return 1;
}

void shim_source_borrow(shim_source *src, const uint8_t *data, size_t size) {
    src->pub.next_input_byte = data;
    src->pub.bytes_in_buffer = size;
    src->end_of_data = 1;
}

int shim_source_skip_to_marker(shim_source *src) {
    const uint8_t *p = src->pub.next_input_byte, *end = p + src->pub.bytes_in_buffer;
    while (p < end) {
        const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p));
        if (!ff) { p = end; break; }
        if (ff + 1 == end) { p = ff; break; }   // keep a trailing 0xFF: its partner has not arrived
        uint8_t next = ff[1];
        // 0x00 is a stuffed data byte, 0xFF fill, RST0..RST7 restart markers inside the scan.
        if (next != 0x00 && next != 0xFF && !(next >= 0xD0 && next <= 0xD7)) {
            src->pub.bytes_in_buffer -= (size_t)(ff - src->pub.next_input_byte);
            src->pub.next_input_byte = ff;
            return 1;
        }
        p = next == 0xFF ? ff + 1 : ff + 2;
    }
    if (src->end_of_data) p = end;
    src->pub.bytes_in_buffer -= (size_t)(p - src->pub.next_input_byte);
    src->pub.next_input_byte = p;
    return src->end_of_data;
}

void shim_source_release(shim_source *src) {
    free(src->owned);
    src->owned = NULL;
    src->capacity = 0;
}
