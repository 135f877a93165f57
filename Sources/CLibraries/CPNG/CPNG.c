// libpng's progressive reader behind setjmp: libpng's error handler longjmps only to the setjmp in
// cpng_reader_feed, inside this file.
#include "CPNGReader.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_error(png_structp png, png_const_charp message) {
    cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
    if (r->state.code == CPNG_OK) {
        r->state.code = CPNG_ERROR;
        snprintf(r->state.message, sizeof r->state.message, "%s", message);
    }
    longjmp(r->jump, 1);
}

// What libpng 1.6's progressive reader says about image data once every row was decoded: deflate data
// past the image ("Extra compressed data in IDAT", "Extra compression data in IDAT"), a damaged end of the
// deflate stream after the last row ("Truncated compressed data in IDAT"), and IDAT chunks after other
// chunks ("Too many IDATs found", a benign error made a warning). Chromium and Firefox show such images.
static int is_after_image_warning(png_const_charp message) {
    return strstr(message, "Extra compress") || strstr(message, "Truncated compressed data")
        || strstr(message, "Too many IDATs");
}

// Warnings about ancillary chunks (a bad iCCP, say) are harmless, and so are those about data after the
// image (above); any other warning about the image data stream means the pixels cannot be trusted, so it
// is kept as an error.
static void on_warning(png_structp png, png_const_charp message) {
    cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
    if (is_after_image_warning(message)) {
        r->state.benign_warning = 1;
        return;
    }
    if (!r->state.data_warning && (strstr(message, "IDAT") || strstr(message, "compress"))) {
        r->state.data_warning = 1;
        snprintf(r->state.message, sizeof r->state.message, "%s", message);
    }
}

/// A malloc'd copy of `size` bytes into `*out` (left NULL when out of memory: metadata is optional).
static void keep_copy(const void *bytes, size_t size, uint8_t **out, size_t *out_size) {
    if (*out || !bytes || size == 0) return;
    *out = malloc(size);
    if (!*out) return;
    memcpy(*out, bytes, size);
    *out_size = size;
}

/// Copies the ICC profile, EXIF and XMP chunks read so far (before IDAT at the header, the rest at the end),
/// and notes the sRGB, gAMA and cHRM chunks (which the PNG specification puts before IDAT).
static void capture_metadata(png_structp png, png_infop info, cpng_reader *r) {
    if (png_get_valid(png, info, PNG_INFO_sRGB) != 0) r->state.has_srgb = 1;
    double gamma = 0;
    if (png_get_valid(png, info, PNG_INFO_gAMA) != 0 && png_get_gAMA(png, info, &gamma) != 0 && gamma > 0) {
        r->state.gamma = gamma;
    }
    double *c = r->state.chrm;
    if (png_get_valid(png, info, PNG_INFO_cHRM) != 0
        && png_get_cHRM(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) != 0) {
        r->state.has_chrm = 1;
    }
    png_charp name; int compression; png_bytep profile; png_uint_32 profile_size;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_size) != 0) {
        keep_copy(profile, profile_size, &r->state.icc, &r->state.icc_size);
    }
    png_uint_32 exif_size = 0; png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &exif_size, &exif) != 0) keep_copy(exif, exif_size, &r->state.exif, &r->state.exif_size);
    png_textp texts = NULL;
    int count = 0;
    png_get_text(png, info, &texts, &count);
    for (int i = 0; i < count; i++) {
        if (texts[i].key && strcmp(texts[i].key, "XML:com.adobe.xmp") == 0 && texts[i].text) {
            size_t length = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE ? texts[i].itxt_length : texts[i].text_length;
            keep_copy(texts[i].text, length, &r->state.xmp, &r->state.xmp_size);
        }
    }
}

// libpng's progressive reader does not parse eXIf itself (its sequential reader does): it reaches us
// as an unknown chunk. Returning 1 tells libpng the chunk was handled; 0 keeps its default for the rest.
static int on_unknown_chunk(png_structp png, png_unknown_chunkp chunk) {
    cpng_reader *r = (cpng_reader *)png_get_user_chunk_ptr(png);
    if (memcmp(chunk->name, "eXIf", 4) != 0) return 0;
    keep_copy(chunk->data, chunk->size, &r->state.exif, &r->state.exif_size);
    return 1;
}

static void on_info(png_structp png, png_infop info) {
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    // The progressive reader calls this again for an IDAT after other chunks (after its benign "Too many
    // IDATs found"): the image is already set up, and its rows must stay where they are.
    if (r->state.header_done) return;
    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    capture_metadata(png, info, r);
    r->state.gray_source = (color & PNG_COLOR_MASK_COLOR) == 0;
    if ((long long)w * (long long)h > r->max_pixels) {
        r->state.width = (int)w; r->state.height = (int)h;
        r->state.code = CPNG_TOO_LARGE;
        longjmp(r->jump, 1);
    }
    png_set_expand(png);  // palette -> RGB, low-bit gray -> 8 bits, tRNS -> alpha
    png_set_strip_16(png);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    int gamma_gray = r->expand_gamma_gray && (color & PNG_COLOR_MASK_COLOR) == 0 && r->state.gamma > 0
        && !r->state.has_srgb && !r->state.icc;
    if (color == PNG_COLOR_TYPE_GRAY_ALPHA || (color == PNG_COLOR_TYPE_GRAY && has_trns) || gamma_gray) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    int stored_channels = color == PNG_COLOR_TYPE_GRAY ? 1 : color == PNG_COLOR_TYPE_RGB ? 3
        : color == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 0;
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    r->untransformed = depth == 8 && interlace == PNG_INTERLACE_NONE && !has_trns && stored_channels == channels;
    r->state.streaming = r->sink && interlace == PNG_INTERLACE_NONE
        && r->decide(r->sink_context, (int)w, (int)h, channels);
    size_t bytes = (size_t)w * (r->state.streaming ? 1 : h) * (size_t)channels;
    if (!r->defer_pixels || r->state.streaming) {
        r->state.pixels = calloc(bytes ? bytes : 1, 1);
        if (!r->state.pixels) { r->state.code = CPNG_OUT_OF_MEMORY; longjmp(r->jump, 1); }
    }
    r->state.width = (int)w;
    r->state.height = (int)h;
    r->state.channels = channels;
    r->state.interlaced = interlace != PNG_INTERLACE_NONE;
    r->state.header_done = 1;
}

static void on_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    if (r->stop && ++r->rows_since_check >= CPNG_ROWS_PER_STOP_CHECK) {
        r->rows_since_check = 0;
        if (r->stop(r->stop_context)) {
            r->state.code = CPNG_STOPPED;
            snprintf(r->state.message, sizeof r->state.message, "stopped (deadline or cancellation)");
            longjmp(r->jump, 1);
        }
    }
    if (!row || number >= (png_uint_32)r->state.height) return;
    if (!r->state.pixels) {
        r->state.code = CPNG_ERROR;
        snprintf(r->state.message, sizeof r->state.message, "rows arrived before a pixel buffer was lent");
        longjmp(r->jump, 1);
    }
    if (r->state.streaming) {
        png_progressive_combine_row(png, r->state.pixels, row);
        r->sink(r->sink_context, r->state.pixels, (int)number);
        r->state.rows++;
        return;
    }
    png_progressive_combine_row(png, r->state.pixels + (size_t)number * r->state.width * r->state.channels, row);
    if (pass != r->state.pass) { r->state.pass = pass; r->state.rows = 0; }
    r->state.rows++;
}

/// Adam7 passes: first column and row, and the steps between columns and rows.
static const int adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2},
                                {0, 1, 1, 2}};

/// Whether the rows delivered cover the image: every row of a non-interlaced image, or every row of the
/// last non-empty Adam7 pass. libpng's progressive reader reaches IEND without complaint when the deflate
/// stream ended early, so the shim counts.
static int all_rows_arrived(const cpng_reader *r) {
    if (!r->state.interlaced) return r->state.rows >= r->state.height;
    for (int pass = 6; pass >= 0; pass--) {
        if (r->state.width <= adam7[pass][0] || r->state.height <= adam7[pass][1]) continue;
        int rows = (r->state.height - adam7[pass][1] + adam7[pass][3] - 1) / adam7[pass][3];
        return r->state.pass == pass && r->state.rows >= rows;
    }
    return 1;
}

static void on_end(png_structp png, png_infop info) {
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    capture_metadata(png, info, r);
    r->state.finished = 1;
    r->state.missing_rows = r->state.header_done && !all_rows_arrived(r);
}

cpng_reader *cpng_reader_new(long long max_pixels) {
    cpng_reader *r = calloc(1, sizeof(cpng_reader));
    if (!r) return NULL;
    r->max_pixels = max_pixels;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_error, on_warning);
    if (r->png) r->info = png_create_info_struct(r->png);
    if (!r->png || !r->info) { cpng_reader_free(r); return NULL; }
    png_set_progressive_read_fn(r->png, r, on_info, on_row, on_end);
    // Benign errors (an IDAT after other chunks, a bad ancillary chunk) become warnings, as in Firefox.
    png_set_benign_errors(r->png, 1);
    // Like Chromium: accept a zlib header whose window size is too small for the data (crbug.com/807324).
    png_set_option(r->png, PNG_MAXIMUM_INFLATE_WINDOW, PNG_OPTION_ON);
    png_set_read_user_chunk_fn(r->png, r, on_unknown_chunk);
    return r;
}

int cpng_reader_feed(cpng_reader *r, const uint8_t *data, size_t size) {
    if (r->state.code != CPNG_OK) return r->state.code;
    if (setjmp(r->jump)) return r->state.code;
    png_process_data(r->png, r->info, (png_bytep)data, size);
    return CPNG_OK;
}

const cpng_state *cpng_reader_state(const cpng_reader *r) { return &r->state; }

void cpng_reader_defer_pixels(cpng_reader *r) { r->defer_pixels = 1; }

void cpng_reader_expand_gamma_gray(cpng_reader *r) { if (r) r->expand_gamma_gray = 1; }

void cpng_reader_use_pixels(cpng_reader *r, uint8_t *pixels) {
    if (!r->defer_pixels || r->state.streaming) return;
    r->state.pixels = pixels;
    r->borrowed = 1;
}

void cpng_reader_stream_rows(cpng_reader *r, cpng_stream_decision decide, cpng_row_sink sink, void *context) {
    r->decide = decide;
    r->sink = sink;
    r->sink_context = context;
}

void cpng_reader_check_stop(cpng_reader *r, cpng_stop_check check, void *context) {
    r->stop = check;
    r->stop_context = context;
    r->rows_since_check = 0;
}

void cpng_reader_free(cpng_reader *r) {
    if (!r) return;
    if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
    if (!r->borrowed) free(r->state.pixels);
    free(r->state.icc);
    free(r->state.exif);
    free(r->state.xmp);
    free(r);
}

// MARK: - Encoding

typedef struct {
    jmp_buf jump;
    char *message;
    uint8_t *bytes;
    size_t size, capacity;
    int out_of_memory;
} writer;

static void on_write_error(png_structp png, png_const_charp message) {
    writer *w = (writer *)png_get_error_ptr(png);
    snprintf(w->message, 200, "%s", message);
    longjmp(w->jump, 1);
}

static void on_write_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

static void on_write(png_structp png, png_bytep data, size_t length) {
    writer *w = (writer *)png_get_io_ptr(png);
    if (w->size + length > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 65536;
        while (capacity < w->size + length) capacity *= 2;
        uint8_t *grown = realloc(w->bytes, capacity);
        if (!grown) { w->out_of_memory = 1; png_error(png, "out of memory"); }
        w->bytes = grown;
        w->capacity = capacity;
    }
    memcpy(w->bytes + w->size, data, length);
    w->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int cpng_encode(const uint8_t *pixels, int width, int height, int channels, size_t stride, int level,
                int unfiltered, int interlace, const uint8_t *icc, size_t icc_size, uint8_t **png_out, size_t *png_size,
                char message[200]) {
    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGB_ALPHA};
    message[0] = 0;
    *png_out = NULL;
    *png_size = 0;
    if (channels < 1 || channels > 4 || width <= 0 || height <= 0) {
        snprintf(message, 200, "cannot encode %dx%d with %d channels", width, height, channels);
        return CPNG_ERROR;
    }
    // Volatile: assigned after setjmp and read after a longjmp back to it.
    writer *volatile w = calloc(1, sizeof(writer));
    png_structp volatile png = NULL;
    png_infop volatile info = NULL;
    png_bytep *volatile rows = NULL;
    if (!w) return CPNG_OUT_OF_MEMORY;
    w->message = message;
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_write_error, on_write_warning);
    if (png) info = png_create_info_struct(png);
    rows = malloc(sizeof(png_bytep) * (size_t)height);
    int code = CPNG_OK;
    if (!png || !info || !rows) { code = CPNG_OUT_OF_MEMORY; goto done; }
    if (setjmp(w->jump)) { code = w->out_of_memory ? CPNG_OUT_OF_MEMORY : CPNG_ERROR; goto done; }
    png_set_write_fn(png, w, on_write, on_flush);
    png_set_compression_level(png, level < 0 ? 0 : (level > 9 ? 9 : level));
    // Without row filters deflate sees the raw bytes: several times faster, larger files (libvips's choice).
    if (unfiltered) png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_types[channels],
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (icc && icc_size > 0) png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + (size_t)y * stride);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
done:
    if (png) png_destroy_write_struct((png_structpp)&png, info ? (png_infopp)&info : NULL);
    free(rows);
    if (code == CPNG_OK) {
        // The buffer grew by doubling: give the unused half back, since answers are kept in caches
        // that count only their bytes.
        if (w->size > 0 && w->size < w->capacity) {
            uint8_t *fitted = realloc(w->bytes, w->size);
            if (fitted) w->bytes = fitted;
        }
        *png_out = w->bytes;
        *png_size = w->size;
    } else {
        free(w->bytes);
    }
    free(w);
    return code;
}
