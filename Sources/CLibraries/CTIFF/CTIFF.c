#include "CTIFF.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

struct ctiff_decoder {
    const uint8_t *data;
    size_t size;
    uint64_t position;
    TIFF *tiff;
    TIFFRGBAImage image;
    int begun;
    char message[256];
};

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    struct ctiff_decoder *decoder = user;
    // Keeps the first error: later ones are usually consequences of it.
    if (decoder && decoder->message[0] == 0) {
        char text[200];
        vsnprintf(text, sizeof text, fmt, ap);
        snprintf(decoder->message, sizeof decoder->message, "%s: %s", module ? module : "libtiff", text);
    }
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

static void copy_message(const char *from, const char *fallback, char *message, size_t size) {
    if (!message || size == 0) return;
    snprintf(message, size, "%s", (from && from[0]) ? from : fallback);
}

static tmsize_t memory_read(thandle_t handle, void *buffer, tmsize_t count) {
    struct ctiff_decoder *d = (struct ctiff_decoder *)handle;
    if (count <= 0 || d->position >= d->size) return 0;
    uint64_t available = d->size - d->position;
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(buffer, d->data + d->position, (size_t)n);
    d->position += n;
    return (tmsize_t)n;
}

static tmsize_t memory_no_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static toff_t memory_seek(thandle_t handle, toff_t offset, int whence) {
    struct ctiff_decoder *d = (struct ctiff_decoder *)handle;
    uint64_t base = whence == SEEK_CUR ? d->position : whence == SEEK_END ? d->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    d->position = base + offset;
    return d->position;
}

static int memory_close(thandle_t handle) { (void)handle; return 0; }
static toff_t memory_size(thandle_t handle) { return ((struct ctiff_decoder *)handle)->size; }
static int no_map(thandle_t handle, void **base, toff_t *size) { (void)handle; (void)base; (void)size; return 0; }
static void no_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

ctiff_decoder *ctiff_decoder_open(const uint8_t *data, size_t size, int64_t max_single_alloc,
                                  char *message, size_t message_size) {
    struct ctiff_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) { copy_message(NULL, "out of memory", message, message_size); return NULL; }
    decoder->data = data;
    decoder->size = size;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) { free(decoder); copy_message(NULL, "out of memory", message, message_size); return NULL; }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, decoder);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, decoder);
    // "rm": read, no memory mapping (the data is already in memory and our map callback says no).
    decoder->tiff = TIFFClientOpenExt("memory", "rm", (thandle_t)decoder, memory_read, memory_no_write,
                                      memory_seek, memory_close, memory_size, no_map, no_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!decoder->tiff) {
        copy_message(decoder->message, "not a TIFF file", message, message_size);
        free(decoder);
        return NULL;
    }
    return decoder;
}

void ctiff_decoder_info(ctiff_decoder *decoder, ctiff_info *info) {
    TIFF *tif = decoder->tiff;
    memset(info, 0, sizeof *info);
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &info->width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &info->height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &info->samples_per_pixel);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &info->bits_per_sample);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &info->sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &info->planar_config);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &info->compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &info->photometric)) info->photometric = 0xFFFF;
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    info->orientation = (orientation >= 1 && orientation <= 8) ? orientation : 1;
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra) {
        if (extra[0] == EXTRASAMPLE_ASSOCALPHA) info->alpha = 1;
        else if (extra[0] == EXTRASAMPLE_UNASSALPHA) info->alpha = 2;
        // libtiff's RGBA reader also takes an unspecified fourth sample of RGB(A) as alpha.
        else if (extra[0] == EXTRASAMPLE_UNSPECIFIED && info->samples_per_pixel > 3) info->alpha = 2;
    }
    info->tiled = TIFFIsTiled(tif);
    if (info->tiled) {
        uint32_t tile_height = 0;
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
        info->rows_per_block = tile_height;
        info->block_size = TIFFTileSize64(tif);
    } else {
        uint32_t rows = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        info->rows_per_block = rows;
        info->block_size = TIFFStripSize64(tif);
    }
    info->has_more_pages = !TIFFLastDirectory(tif);
}

int ctiff_decoder_blob(ctiff_decoder *decoder, uint32_t tag, const uint8_t **bytes, uint32_t *count) {
    uint32_t n = 0;
    void *pointer = NULL;
    if (!TIFFGetField(decoder->tiff, tag, &n, &pointer) || !pointer || n == 0) return 0;
    *bytes = pointer;
    *count = n;
    return 1;
}

int ctiff_decoder_begin(ctiff_decoder *decoder, char *message, size_t message_size) {
    char emsg[1024] = {0};
    if (!TIFFRGBAImageOK(decoder->tiff, emsg) ||
        !TIFFRGBAImageBegin(&decoder->image, decoder->tiff, 0, emsg)) {
        copy_message(emsg[0] ? emsg : decoder->message, "cannot read this kind of TIFF", message, message_size);
        return 0;
    }
    decoder->begun = 1;
    // The stored orientation, top row first: the caller applies the orientation tag itself (with the
    // other coders' EXIF rules), so libtiff must not flip anything.
    decoder->image.orientation = ORIENTATION_TOPLEFT;
    decoder->image.req_orientation = ORIENTATION_TOPLEFT;
    return 1;
}

int ctiff_decoder_read_rows(ctiff_decoder *decoder, uint32_t row, uint32_t rows, uint32_t *raster,
                            char *message, size_t message_size) {
    if (!decoder->begun) { copy_message(NULL, "reader not started", message, message_size); return 0; }
    decoder->image.row_offset = (int)row;
    decoder->image.col_offset = 0;
    decoder->message[0] = 0;
    if (!TIFFRGBAImageGet(&decoder->image, raster, decoder->image.width, rows) || decoder->message[0]) {
        copy_message(decoder->message, "cannot decode the image data", message, message_size);
        return 0;
    }
    return 1;
}

void ctiff_decoder_close(ctiff_decoder *decoder) {
    if (!decoder) return;
    if (decoder->begun) TIFFRGBAImageEnd(&decoder->image);
    if (decoder->tiff) TIFFClose(decoder->tiff);
    free(decoder);
}

// MARK: - Encoding

struct writer {
    ctiff_buffer *buffer;
    char message[256];
};

static int reserve(ctiff_buffer *b, size_t needed) {
    if (needed <= b->capacity) return 1;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < needed) {
        if (capacity > SIZE_MAX / 2) return 0;
        capacity *= 2;
    }
    uint8_t *bytes = realloc(b->bytes, capacity);
    if (!bytes) return 0;
    memset(bytes + b->capacity, 0, capacity - b->capacity);
    b->bytes = bytes;
    b->capacity = capacity;
    return 1;
}

static tmsize_t buffer_write(thandle_t handle, void *data, tmsize_t count) {
    ctiff_buffer *b = ((struct writer *)handle)->buffer;
    if (count < 0 || b->position > SIZE_MAX - (size_t)count || !reserve(b, b->position + (size_t)count)) {
        b->failed = 1;
        return -1;
    }
    memcpy(b->bytes + b->position, data, (size_t)count);
    b->position += (size_t)count;
    if (b->position > b->size) b->size = b->position;
    return count;
}

static tmsize_t buffer_read(thandle_t handle, void *data, tmsize_t count) {
    ctiff_buffer *b = ((struct writer *)handle)->buffer;
    if (count <= 0 || b->position >= b->size) return 0;
    size_t n = (size_t)count < b->size - b->position ? (size_t)count : b->size - b->position;
    memcpy(data, b->bytes + b->position, n);
    b->position += n;
    return (tmsize_t)n;
}

static toff_t buffer_seek(thandle_t handle, toff_t offset, int whence) {
    ctiff_buffer *b = ((struct writer *)handle)->buffer;
    uint64_t base = whence == SEEK_CUR ? b->position : whence == SEEK_END ? b->size : 0;
    if (offset > SIZE_MAX - base) return (toff_t)-1;
    b->position = (size_t)(base + offset);
    return b->position;
}

static toff_t buffer_size(thandle_t handle) { return ((struct writer *)handle)->buffer->size; }

int ctiff_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t bytes_per_row,
                 int compression, const uint8_t *icc, size_t icc_size, ctiff_buffer *output,
                 char *message, size_t message_size) {
    struct writer writer = { .buffer = output };
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) { copy_message(NULL, "out of memory", message, message_size); return 0; }
    TIFFOpenOptionsSetErrorHandlerExtR(options, (TIFFErrorHandlerExtR)on_error, NULL);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, NULL);
    TIFF *tif = TIFFClientOpenExt("memory", "w", (thandle_t)&writer, buffer_read, buffer_write, buffer_seek,
                                  memory_close, buffer_size, no_map, no_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!tif) { copy_message(NULL, "cannot open the encoder", message, message_size); return 0; }
    int ok = 1;
    ok &= TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    ok &= TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    ok &= TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels);
    ok &= TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)8);
    ok &= TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    ok &= TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    if (channels == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        ok &= TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    if (compression > 0) {
        ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        ok &= TIFFSetField(tif, TIFFTAG_ZIPQUALITY, compression > 9 ? 9 : compression);
        ok &= TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    } else {
        ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    }
    // Strips of about 64 KB, as libtiff suggests.
    ok &= TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    if (icc && icc_size > 0) ok &= TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)icc_size, icc);
    // libtiff's predictor rewrites the row it is given, so each row goes through a copy.
    size_t row_bytes = (size_t)width * (size_t)channels;
    uint8_t *row = ok ? malloc(row_bytes ? row_bytes : 1) : NULL;
    if (!row) ok = 0;
    for (uint32_t y = 0; ok && y < height; y++) {
        memcpy(row, pixels + (size_t)y * bytes_per_row, row_bytes);
        ok = TIFFWriteScanline(tif, row, y, 0) == 1;
    }
    free(row);
    if (ok) ok = TIFFWriteDirectory(tif);
    TIFFClose(tif);
    if (!ok || output->failed) {
        copy_message(NULL, output->failed ? "out of memory" : "libtiff refused the image", message, message_size);
        return 0;
    }
    return 1;
}
