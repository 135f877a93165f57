#ifndef CJPEG_H
#define CJPEG_H
#include <stddef.h>
#include <stdint.h>

/// Result codes of the JPEG shim.
enum {
    CJPEG_OK = 0,
    CJPEG_ERROR = 1,           ///< libjpeg reported an error; the state's `message` says which.
    CJPEG_TOO_LARGE = 2,       ///< width * height exceeds `max_pixels` (checked from the header).
    CJPEG_OUT_OF_MEMORY = 3,
    CJPEG_MISUSE = 4,          ///< a call out of order (e.g. append after finish)
    CJPEG_STOPPED = 5,         ///< the stop check (cjpeg_decoder_set_stop_check) asked to stop
    CJPEG_TOO_MANY_SCANS = 6,  ///< a scan past `max_scans`; `scans` says which
    CJPEG_TOO_MUCH_WORK = 7,   ///< the work so far would pass `max_work_pixels`; `work_pixels` says how much
};

/// What a decoder knows so far. Owned by the decoder; valid until the next call on it.
typedef struct {
    int code;                  ///< first failure (sticky), or CJPEG_OK
    char message[200];
    int header_read;           ///< the markers up to the first scan are read: image size, EXIF and ICC are known
    int header_done;           ///< the sizes below are known and the output buffer exists
    int width, height;         ///< output size (after DCT scaling)
    int image_width, image_height; ///< stored size in the file
    int channels;              ///< 1 (gray), 3 (RGB; CMYK and YCCK are converted) or 4 (CMYK as stored, with CJPEG_KEEP_CMYK_WITH_PROFILE)
    int progressive;           ///< several scans, decoded in buffered-image mode: partial images show whole scans
    int rows;                  ///< single scan: rows of `pixels` decoded so far (the rest is not written yet)
    int scans_complete;        ///< several scans: scans whose data has fully arrived
    int scans_shown;           ///< several scans: the scan `pixels` shows (0: none yet)
    int skipped_scans;         ///< AC scans passed over because the scaled output never reads them
    int scans;                 ///< several scans: scans begun so far (libjpeg's input_scan_number)
    long long work_pixels;     ///< work so far in pixels: each scan its components' share of the image's
                               ///< stored pixels, each output pass of several scans the output
    int sparse_components;     ///< components whose coefficient buffer was kept sparse (CJPEG_SPARSE_COEFFICIENTS)
    size_t coefficient_bytes;  ///< the most memory the sparse coefficient buffers held at once
    int finished;              ///< the whole image is in `pixels`
    int warnings;              ///< libjpeg warnings seen
    int premature_end;         ///< the data ended before the image (libjpeg's JWRN_JPEG_EOF); missing parts are gray
    uint8_t *pixels;           ///< width * height * channels, packed; owned by the decoder unless lent with `cjpeg_decoder_finish_into`
    uint8_t *exif; size_t exif_size;  ///< APP1 "Exif\0\0" payload without the prefix
    uint8_t *icc; size_t icc_size;    ///< the ICC profile reassembled from APP2 markers
} cjpeg_state;

typedef struct cjpeg_decoder cjpeg_decoder;

/// Options of `cjpeg_decoder_new` (or-ed together).
enum {
    /// At scale 1/8, pass over the AC scans of components whose 1x1 IDCT reads only the DC coefficient
    /// (same pixels, much less Huffman decoding).
    CJPEG_SKIP_UNUSED_SCANS = 1,
    /// At scale 1/8, keep a progressive file's whole-image coefficient buffer sparse: per block only its
    /// nonzero coefficients (only the DC value for components the first option skips), with a few rows
    /// expanded at a time (same pixels, a fraction of the memory).
    CJPEG_SPARSE_COEFFICIENTS = 2,
    /// A CMYK or YCCK file that carries an ICC profile is output as its 4 CMYK samples per pixel, as
    /// stored (Adobe-inverted), for a colour management system to convert with that profile; without
    /// this option (or a profile) CMYK is converted to RGB naively.
    CJPEG_KEEP_CMYK_WITH_PROFILE = 4,
};

/// A decoder for one JPEG, fed incrementally or all at once. It refuses images with more than
/// `max_pixels` pixels, checked from the header before any image memory is allocated; files with several
/// scans having more than `max_scans` scans (CJPEG_TOO_MANY_SCANS, checked as each scan begins; 0 refuses
/// every multi-scan file); and work past `max_work_pixels` pixels (CJPEG_TOO_MUCH_WORK, checked before each
/// scan and output pass): a file with one scan costs its stored pixels once; with several, each scan costs
/// the stored pixels times the share of the image's samples its components hold (a scan of every
/// component: the whole image; luma alone in 4:2:0: two thirds), whatever the DCT scale and whether it is
/// passed over or not (libjpeg walks every block of the scan either way), and each output pass costs the
/// output (scaled) pixels.
/// Once the header is read (`header_read`) the decoder waits for `cjpeg_decoder_choose_scale`.
/// `options`: CJPEG_SKIP_UNUSED_SCANS | CJPEG_SPARSE_COEFFICIENTS; 0 decodes every scan into libjpeg's own
/// coefficient buffer (for tests).
/// Returns NULL when memory runs out. Every libjpeg error returns to the entry point that caused it
/// through a setjmp inside this target.
cjpeg_decoder *cjpeg_decoder_new(long long max_pixels, int max_scans, long long max_work_pixels, int options);

/// Asked between units of work (each row group or iMCU row, scan and output pass, through libjpeg's
/// progress monitor and the decoder's own loops): a nonzero answer stops the decode with CJPEG_STOPPED
/// (sticky). `context` is the caller's, passed back as is.
typedef int (*cjpeg_stop_check)(void *context);

/// Sets (or, with NULL, clears) the stop check for the calls that follow; `context` must stay valid until
/// it is cleared or replaced.
void cjpeg_decoder_set_stop_check(cjpeg_decoder *decoder, cjpeg_stop_check check, void *context);

/// After `header_read`: decode at the largest DCT scale (1/8, 1/4, 1/2) whose output is still at least
/// `min_width` x `min_height` (0 x 0: full size), then go on with the bytes received so far.
/// Returns the state's code.
int cjpeg_decoder_choose_scale(cjpeg_decoder *decoder, int min_width, int min_height);

/// Copies the next bytes and decodes as far as they go: the header, then rows (single scan) or scans
/// into the coefficient buffer (several scans). Returns the state's code.
int cjpeg_decoder_append(cjpeg_decoder *decoder, const uint8_t *data, size_t size);

/// Several scans: renders the scans complete so far into `pixels` when there are newer ones than the
/// scan shown (one output pass). Returns the state's code.
int cjpeg_decoder_render(cjpeg_decoder *decoder);

/// No more bytes will come: decodes the rest (a truncated file ends with gray and `premature_end`).
int cjpeg_decoder_finish(cjpeg_decoder *decoder);

/// Whole-file decoding, step 1: reads `data` (borrowed; it must stay valid until step 2 returns) up to
/// the end of the header; then `cjpeg_decoder_choose_scale` goes on to the point where the output size
/// is known.
int cjpeg_decoder_start(cjpeg_decoder *decoder, const uint8_t *data, size_t size);
/// Whole-file decoding, step 2: decodes the rest straight into `pixels` (width * height * channels bytes,
/// owned by the caller), so the caller's buffer is the only copy of the image.
int cjpeg_decoder_finish_into(cjpeg_decoder *decoder, uint8_t *pixels);

const cjpeg_state *cjpeg_decoder_state(const cjpeg_decoder *decoder);
void cjpeg_decoder_free(cjpeg_decoder *decoder);

/// Encodes packed pixels (1 or 3 channels). `subsampling`: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0.
/// On success returns CJPEG_OK and a malloc'd buffer in `*jpeg` (free with `cjpeg_free`).
int cjpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                 int subsampling, uint8_t **jpeg, size_t *jpeg_size, char message[200]);

/// The largest ICC profile a JPEG can carry: 255 APP2 markers of 65,519 profile bytes each (65,533 bytes
/// of marker data less the 14-byte "ICC_PROFILE\0" + sequence header).
#define CJPEG_MAX_ICC_SIZE ((size_t)255 * 65519)

/// `cjpeg_encode` that also writes `icc` (`icc_size` bytes, at most CJPEG_MAX_ICC_SIZE; NULL for none) in
/// APP2 markers with libjpeg-turbo's jpeg_write_icc_profile.
int cjpeg_encode_icc(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                     int subsampling, const uint8_t *icc, size_t icc_size, uint8_t **jpeg, size_t *jpeg_size,
                     char message[200]);

void cjpeg_free(void *pointer);
#endif
