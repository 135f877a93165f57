#ifndef CPNG_H
#define CPNG_H
#include <stddef.h>
#include <stdint.h>
#include <png.h>

/// Result codes of the PNG reader.
enum { CPNG_OK = 0, CPNG_ERROR = 1, CPNG_TOO_LARGE = 2, CPNG_OUT_OF_MEMORY = 3 };

/// What the progressive reader knows so far.
typedef struct {
    int code;
    char message[200];
    int header_done;      ///< IHDR read, transforms set, `pixels` allocated
    int width, height;    ///< stored size (also the output size)
    int channels;         ///< 1 gray, 3 RGB, 4 RGBA after expansion and 16-to-8 reduction
    int interlaced;
    int pass;             ///< Adam7 pass of the latest row (0 for non-interlaced)
    int rows;             ///< rows delivered in the latest pass
    int finished;         ///< IEND reached
    int data_warning;     ///< libpng warned about the image data itself (corrupt deflate stream); `message` says how
    uint8_t *pixels;      ///< width * height * channels, owned by the reader
} cpng_state;

typedef struct cpng_reader cpng_reader;

/// A reader that refuses images with more than `max_pixels` pixels, checked from IHDR before allocating.
cpng_reader *cpng_reader_new(long long max_pixels);
/// Feeds the next bytes. Every libpng error longjmps back into this function only (never across a
/// Swift frame) and is returned as a code with libpng's message in the state.
int cpng_reader_feed(cpng_reader *reader, const uint8_t *data, size_t size);
const cpng_state *cpng_reader_state(const cpng_reader *reader);
void cpng_reader_free(cpng_reader *reader);
#endif
