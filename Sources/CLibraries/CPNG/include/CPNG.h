#ifndef CPNG_H
#define CPNG_H
#include <stddef.h>
#include <stdint.h>
#include <png.h>

/// Result codes of the PNG reader.
/// CPNG_DECLINED and CPNG_RETRY come only from `cpng_reader_decode_image_data`.
enum {
    CPNG_OK = 0, CPNG_ERROR = 1, CPNG_TOO_LARGE = 2, CPNG_OUT_OF_MEMORY = 3, CPNG_STOPPED = 4, CPNG_DECLINED = 5,
    CPNG_RETRY = 6
};

/// Rows decoded between two calls of the stop check (see `cpng_reader_check_stop`): few enough that a
/// stop is seen within milliseconds even for very wide images, many enough that the check costs nothing.
enum { CPNG_ROWS_PER_STOP_CHECK = 32 };

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
    int missing_rows;     ///< IEND reached, but the deflate stream ended before the last row: a truncated image
    int data_warning;     ///< libpng warned about the image data in a way that may mean missing pixels; `message` says how
    int benign_warning;   ///< libpng warned about data after the image (extra deflate data, IDAT after the image):
                          ///< every row was decoded, so the image is shown, as browsers do
    int streaming;        ///< rows go to the row sink as they are decoded; `pixels` holds one row only
    uint8_t *icc; size_t icc_size;    ///< iCCP profile, decompressed (owned by the reader)
    int has_srgb;         ///< an sRGB chunk was read
    double gamma;         ///< the gAMA chunk's value (0.45455 for a 2.2 power curve); 0 without a valid one
    int has_chrm;         ///< a valid cHRM chunk was read: `chrm` holds white x, y, red x, y, green x, y, blue x, y
    double chrm[8];
    int gray_source;      ///< the stored color type is gray (with or without alpha), whatever the output channels
    uint8_t *exif; size_t exif_size;  ///< eXIf payload: a TIFF structure (owned by the reader)
    uint8_t *xmp; size_t xmp_size;    ///< XMP packet from the "XML:com.adobe.xmp" iTXt chunk (owned by the reader)
    uint8_t *pixels;      ///< width * height * channels (one row when streaming), owned by the reader
} cpng_state;

/// Asked once the header is read: return nonzero to receive the rows of a `width` x `height` image one by
/// one instead of having the reader keep the whole image (only non-interlaced images can stream).
typedef int (*cpng_stream_decision)(void *context, int width, int height, int channels);
/// Receives each decoded row (`width * channels` bytes, valid only during the call) of a streamed image.
typedef void (*cpng_row_sink)(void *context, const uint8_t *row, int number);

/// Asked every `CPNG_ROWS_PER_STOP_CHECK` rows: return nonzero to stop the decode (deadline or
/// cancellation). The feed then returns `CPNG_STOPPED` through the reader's setjmp.
typedef int (*cpng_stop_check)(void *context);

typedef struct cpng_reader cpng_reader;

/// A reader that refuses images with more than `max_pixels` pixels, checked from IHDR before allocating.
cpng_reader *cpng_reader_new(long long max_pixels);
/// Feeds the next bytes. Every libpng error longjmps back into this function only (never across a
/// Swift frame) and is returned as a code with libpng's message in the state.
int cpng_reader_feed(cpng_reader *reader, const uint8_t *data, size_t size);
const cpng_state *cpng_reader_state(const cpng_reader *reader);
/// Makes the reader allocate no image buffer when the header is read (unless it streams rows): the caller
/// lends one with `cpng_reader_use_pixels` before feeding image data, so a whole decode writes straight
/// into the memory the decoded image keeps. Call before the first feed.
void cpng_reader_defer_pixels(cpng_reader *reader);
/// Decode gray images that have a gAMA chunk and neither sRGB nor iCCP as RGB, so the colour conversion
/// that applies gAMA works on RGB pixels (Little CMS's gray-to-gray transforms lose levels in the darks).
void cpng_reader_expand_gamma_gray(cpng_reader *reader);
/// Lends `pixels` (width * height * channels bytes) as the image buffer of a deferring reader, or takes
/// it back with NULL. The reader never frees a lent buffer. Ignored when rows are streamed.
void cpng_reader_use_pixels(cpng_reader *reader, uint8_t *pixels);
/// Offers to stream rows to `sink` (see `cpng_stream_decision`); call before the first feed. `context` is
/// passed back to both callbacks and must outlive the reader's feeds.
void cpng_reader_stream_rows(cpng_reader *reader, cpng_stream_decision decide, cpng_row_sink sink, void *context);
/// Installs `check` (with its `context`, which must outlive the reader's feeds), asked between rows
/// whether to stop; NULL removes it.
void cpng_reader_check_stop(cpng_reader *reader, cpng_stop_check check, void *context);
/// Decodes the image data of a whole file in memory without libpng's row loop: `data` starts at the
/// first IDAT chunk (its length field), after the reader was fed everything before it. Rows go where
/// libpng's would (the lent buffer, or the row sink), with the same stop checks.
///
/// Returns CPNG_OK when every row was decoded and the file ended with IEND; CPNG_DECLINED, having
/// touched nothing, for files that need one of libpng's transforms or whose chunks after the first IDAT
/// are not just IDATs and a final IEND (feed them to the reader as usual); CPNG_RETRY when the image data
/// held a surprise (a bad CRC, a damaged, short or long deflate stream, a bad filter type), after which
/// the reader and the rows it delivered must be dropped and the file decoded again by a new reader, so
/// such files get libpng's exact handling; CPNG_STOPPED when the stop check asked to stop.
int cpng_reader_decode_image_data(cpng_reader *reader, const uint8_t *data, size_t size);

/// Encodes packed pixels (`channels` 1 gray, 3 RGB, 4 RGBA; rows `stride` bytes apart) with zlib
/// `level` 0-9, without row filters when `unfiltered` is set (else libpng's adaptive choice per row),
/// Adam7-interlaced when `interlace` is set, with an iCCP chunk when `icc` is given.
/// libpng's errors return here through setjmp. On success returns CPNG_OK and a malloc'd buffer in
/// `*png` (free with `free`); otherwise an error code and libpng's message.
int cpng_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride, int level,
                int unfiltered, int interlace, const uint8_t *icc, size_t icc_size, uint8_t **png, size_t *png_size,
                char message[200]);
void cpng_reader_free(cpng_reader *reader);
#endif
