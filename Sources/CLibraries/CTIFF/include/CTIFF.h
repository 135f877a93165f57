#ifndef CTIFF_H
#define CTIFF_H
#include <stddef.h>
#include <stdint.h>

/// A TIFF held in memory, opened for decoding its first directory (page) through libtiff's RGBA
/// interface. libtiff reports errors through a handler of this handle only (never stderr), and
/// refuses any single allocation above the limit given to `ctiff_decoder_open`.
typedef struct ctiff_decoder ctiff_decoder;

/// What the first directory says about its pixels.
typedef struct {
    uint32_t width, height;
    uint16_t samples_per_pixel, bits_per_sample, sample_format, photometric, planar_config, compression;
    /// TIFF orientation tag (1 to 8; 1 when absent or out of range).
    uint16_t orientation;
    /// 0: no alpha, 1: associated (premultiplied) alpha, 2: unassociated alpha.
    uint16_t alpha;
    /// Rows libtiff decodes at once: rows per strip, or the tile height.
    uint32_t rows_per_block;
    int tiled;
    /// Bytes libtiff allocates for one strip or tile (0 when it cannot tell).
    uint64_t block_size;
    /// Number of directories (pages), counted up to 2 (more than one page is all that matters).
    int has_more_pages;
} ctiff_info;

/// Opens `data` (which must outlive the decoder). Returns NULL and writes a message when libtiff
/// refuses the header.
ctiff_decoder *ctiff_decoder_open(const uint8_t *data, size_t size, int64_t max_single_alloc,
                                  char *message, size_t message_size);
void ctiff_decoder_info(ctiff_decoder *decoder, ctiff_info *info);
/// An embedded block stored as an undefined-byte tag (ICC profile 34675, XMP 700); 0 when absent.
int ctiff_decoder_blob(ctiff_decoder *decoder, uint32_t tag, const uint8_t **bytes, uint32_t *count);
/// Prepares the RGBA reader; 0 with a message when libtiff cannot convert this kind of image.
int ctiff_decoder_begin(ctiff_decoder *decoder, char *message, size_t message_size);
/// Decodes rows [row, row + rows) of the stored (unoriented) image into `raster` (width x rows,
/// 4 bytes per pixel R, G, B, A; alpha premultiplied). 0 with a message on failure.
int ctiff_decoder_read_rows(ctiff_decoder *decoder, uint32_t row, uint32_t rows, uint32_t *raster,
                            char *message, size_t message_size);
void ctiff_decoder_close(ctiff_decoder *decoder);

/// A growing output buffer for `ctiff_encode` (free `bytes` with `free`).
typedef struct { uint8_t *bytes; size_t size, capacity, position; int failed; } ctiff_buffer;

/// Encodes one page of 8-bit pixels: `channels` 1 (gray), 3 (RGB) or 4 (RGBA, unassociated alpha).
/// `compression` 0 writes uncompressed strips, 1-9 Deflate at that level with the horizontal
/// predictor. `icc` may be NULL. Returns 1 on success (the file in `output`), 0 with a message.
int ctiff_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t bytes_per_row,
                 int compression, const uint8_t *icc, size_t icc_size, ctiff_buffer *output,
                 char *message, size_t message_size);
#endif
