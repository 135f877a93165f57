// Memory I/O for giflib: its decoder and encoder take read/write callbacks with a user pointer.
#include "CGIF.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// What the read callback serves: `data[0..<size]`, except that on reaching `jump_at` it continues at
// `jump_to` (to read one frame, giflib is shown the header and global color table, then that frame).
typedef struct {
    const uint8_t *data;
    size_t size, offset, jump_at, jump_to;
    int hit_end;
} reader;

static int read_memory(GifFileType *gif, GifByteType *into, int length) {
    reader *r = (reader *)gif->UserData;
    size_t wanted = length < 0 ? 0 : (size_t)length, done = 0;
    while (done < wanted) {
        if (r->offset == r->jump_at) { r->offset = r->jump_to; r->jump_at = SIZE_MAX; }
        size_t limit = r->jump_at < r->size ? r->jump_at : r->size;
        size_t left = r->offset < limit ? limit - r->offset : 0;
        if (left == 0) { r->hit_end = 1; break; }
        size_t n = wanted - done < left ? wanted - done : left;
        memcpy(into + done, r->data + r->offset, n);
        r->offset += n;
        done += n;
    }
    return (int)done;
}

static GifFileType *open_reader(const uint8_t *data, size_t size, size_t jump_at, size_t jump_to, int *error) {
    reader *r = malloc(sizeof(reader));
    if (!r) { *error = D_GIF_ERR_NOT_ENOUGH_MEM; return NULL; }
    *r = (reader){ .data = data, .size = size, .offset = 0, .jump_at = jump_at, .jump_to = jump_to, .hit_end = 0 };
    GifFileType *gif = DGifOpen(r, read_memory, error);
    if (!gif) free(r);
    return gif;
}

GifFileType *cgif_open_memory(const uint8_t *data, size_t size, int *error) {
    return open_reader(data, size, SIZE_MAX, 0, error);
}

GifFileType *cgif_open_frame(const uint8_t *data, size_t size, size_t header_size, size_t frame_offset, int *error) {
    if (header_size > size || frame_offset > size) { *error = D_GIF_ERR_READ_FAILED; return NULL; }
    return open_reader(data, size, header_size, frame_offset, error);
}

size_t cgif_offset(const GifFileType *gif) { return ((const reader *)gif->UserData)->offset; }

int cgif_hit_end(const GifFileType *gif) { return ((const reader *)gif->UserData)->hit_end; }

void cgif_close(GifFileType *gif) {
    if (!gif) return;
    void *r = gif->UserData;
    int error = 0;
    DGifCloseFile(gif, &error);
    free(r);
}

static int write_memory(GifFileType *gif, const GifByteType *bytes, int length) {
    cgif_buffer *b = (cgif_buffer *)gif->UserData;
    if (length <= 0) return 0;
    if (b->size + (size_t)length > b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 65536;
        while (capacity < b->size + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(b->bytes, capacity);
        if (!grown) { b->failed = 1; return 0; }
        b->bytes = grown; b->capacity = capacity;
    }
    memcpy(b->bytes + b->size, bytes, (size_t)length);
    b->size += (size_t)length;
    return length;
}

GifFileType *cgif_open_writer(cgif_buffer *buffer, int *error) {
    memset(buffer, 0, sizeof(*buffer));
    return EGifOpen(buffer, write_memory, error);
}

void cgif_buffer_free(cgif_buffer *buffer) { free(buffer->bytes); buffer->bytes = NULL; }
