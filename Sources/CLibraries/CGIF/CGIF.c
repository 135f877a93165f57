// Memory I/O for giflib: its decoder and encoder take read/write callbacks with a user pointer.
#include "CGIF.h"
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *data; size_t size, offset; } reader;

static int read_memory(GifFileType *gif, GifByteType *into, int length) {
    reader *r = (reader *)gif->UserData;
    size_t left = r->size - r->offset;
    size_t n = length < 0 ? 0 : ((size_t)length < left ? (size_t)length : left);
    memcpy(into, r->data + r->offset, n);
    r->offset += n;
    return (int)n;
}

GifFileType *cgif_open_memory(const uint8_t *data, size_t size, int *error) {
    reader *r = malloc(sizeof(reader));
    if (!r) { *error = D_GIF_ERR_NOT_ENOUGH_MEM; return NULL; }
    r->data = data; r->size = size; r->offset = 0;
    GifFileType *gif = DGifOpen(r, read_memory, error);
    if (!gif) free(r);
    return gif;
}

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
