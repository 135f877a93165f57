#ifndef CGIF_H
#define CGIF_H
#include <stddef.h>
#include <stdint.h>
#include <gif_lib.h>

/// Opens GIF data held in memory for decoding (the reader state is freed by `cgif_close`). `data`
/// must stay valid until then.
GifFileType *cgif_open_memory(const uint8_t *data, size_t size, int *error);
/// Opens one frame of a GIF in memory: giflib reads the header, logical screen and global color table
/// (the first `header_size` bytes), then continues at `frame_offset`, the frame's image separator
/// (0x2C), as if the frame came right after the header. Close with `cgif_close`.
GifFileType *cgif_open_frame(const uint8_t *data, size_t size, size_t header_size, size_t frame_offset, int *error);
/// Position of the next byte the reader hands to giflib.
size_t cgif_offset(const GifFileType *gif);
/// 1 when giflib asked for bytes past the end of the data (the file is truncated), else 0.
int cgif_hit_end(const GifFileType *gif);
/// Closes a decoder from `cgif_open_memory` or `cgif_open_frame`.
void cgif_close(GifFileType *gif);

/// A growing output buffer for `cgif_open_writer`.
typedef struct { uint8_t *bytes; size_t size, capacity; int failed; } cgif_buffer;
/// Opens an encoder writing into `buffer` (free `buffer->bytes` with `free` when done).
GifFileType *cgif_open_writer(cgif_buffer *buffer, int *error);
void cgif_buffer_free(cgif_buffer *buffer);
#endif
