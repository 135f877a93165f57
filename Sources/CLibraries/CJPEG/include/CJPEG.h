#ifndef CJPEG_H
#define CJPEG_H
#include <stddef.h>
#include <stdint.h>

/// Result codes of the JPEG shim.
enum {
    CJPEG_OK = 0,
    CJPEG_ERROR = 1,           ///< libjpeg reported an error; `message` says which.
    CJPEG_TOO_LARGE = 2,       ///< width * height exceeds `max_pixels` (checked from the header).
    CJPEG_OUT_OF_MEMORY = 3,
};

/// What one decode produced. Pixel, EXIF and ICC buffers are malloc'd; free them with `cjpeg_free`.
typedef struct {
    int code;
    char message[200];
    int width, height;         ///< output size (after DCT scaling)
    int image_width, image_height; ///< stored size in the file
    int channels;              ///< 1 (gray) or 3 (RGB)
    int warnings;              ///< libjpeg warnings seen
    int premature_end;         ///< JWRN_JPEG_EOF seen: the data ended early (missing rows are gray)
    int rows_decoded;          ///< scanlines produced before the data ended or an error
    uint8_t *pixels;
    uint8_t *exif; size_t exif_size;  ///< APP1 "Exif\0\0" payload without the prefix
    uint8_t *icc; size_t icc_size;
} cjpeg_decoded;

/// Decodes `data`. With `min_width`/`min_height` > 0, uses the largest DCT scale (1/8, 1/4, 1/2) whose
/// output is still at least that size. Every libjpeg error returns here through setjmp inside the shim.
void cjpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height, long long max_pixels,
                  cjpeg_decoded *out);

/// Encodes packed pixels (1 or 3 channels). `subsampling`: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0.
/// On success returns CJPEG_OK and a malloc'd buffer in `*jpeg` (free with `cjpeg_free`).
int cjpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                 int subsampling, uint8_t **jpeg, size_t *jpeg_size, char message[200]);

void cjpeg_free(void *pointer);
#endif
