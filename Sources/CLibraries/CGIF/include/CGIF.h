#ifndef CGIF_H
#define CGIF_H
#include <stddef.h>
#include <stdint.h>
#include <gif_lib.h>

/// Opens GIF data held in memory for decoding (the reader state is freed by `cgif_close`).
GifFileType *cgif_open_memory(const uint8_t *data, size_t size, int *error);
/// Closes a decoder from `cgif_open_memory`.
void cgif_close(GifFileType *gif);

/// A growing output buffer for `cgif_open_writer`.
typedef struct { uint8_t *bytes; size_t size, capacity; int failed; } cgif_buffer;
/// Opens an encoder writing into `buffer` (free `buffer->bytes` with `free` when done).
GifFileType *cgif_open_writer(cgif_buffer *buffer, int *error);
void cgif_buffer_free(cgif_buffer *buffer);
#endif
