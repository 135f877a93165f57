// libpng's progressive reader behind setjmp: libpng's error handler longjmps only to the setjmp in
// cpng_reader_feed, inside this file.
#include "CPNG.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cpng_reader {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    long long max_pixels;
    cpng_state state;
};

static void on_error(png_structp png, png_const_charp message) {
    cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
    if (r->state.code == CPNG_OK) {
        r->state.code = CPNG_ERROR;
        snprintf(r->state.message, sizeof r->state.message, "%s", message);
    }
    longjmp(r->jump, 1);
}

// Warnings about ancillary chunks (a bad iCCP, say) are harmless; a warning about the image data stream
// (corrupt or extra deflate data in IDAT) means the pixels cannot be trusted, so it is kept as an error.
static void on_warning(png_structp png, png_const_charp message) {
    cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
    if (!r->state.data_warning && (strstr(message, "IDAT") || strstr(message, "compress"))) {
        r->state.data_warning = 1;
        snprintf(r->state.message, sizeof r->state.message, "%s", message);
    }
}

static void on_info(png_structp png, png_infop info) {
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    if ((long long)w * (long long)h > r->max_pixels) {
        r->state.width = (int)w; r->state.height = (int)h;
        r->state.code = CPNG_TOO_LARGE;
        longjmp(r->jump, 1);
    }
    png_set_expand(png);  // palette -> RGB, low-bit gray -> 8 bits, tRNS -> alpha
    png_set_strip_16(png);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (color == PNG_COLOR_TYPE_GRAY_ALPHA || (color == PNG_COLOR_TYPE_GRAY && has_trns)) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    size_t bytes = (size_t)w * h * (size_t)channels;
    r->state.pixels = calloc(bytes ? bytes : 1, 1);
    if (!r->state.pixels) { r->state.code = CPNG_OUT_OF_MEMORY; longjmp(r->jump, 1); }
    r->state.width = (int)w;
    r->state.height = (int)h;
    r->state.channels = channels;
    r->state.interlaced = interlace != PNG_INTERLACE_NONE;
    r->state.header_done = 1;
}

static void on_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    if (!row || number >= (png_uint_32)r->state.height) return;
    png_progressive_combine_row(png, r->state.pixels + (size_t)number * r->state.width * r->state.channels, row);
    if (pass != r->state.pass) { r->state.pass = pass; r->state.rows = 0; }
    r->state.rows++;
}

static void on_end(png_structp png, png_infop info) {
    (void)info;
    cpng_reader *r = (cpng_reader *)png_get_progressive_ptr(png);
    r->state.finished = 1;
}

cpng_reader *cpng_reader_new(long long max_pixels) {
    cpng_reader *r = calloc(1, sizeof(cpng_reader));
    if (!r) return NULL;
    r->max_pixels = max_pixels;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_error, on_warning);
    if (r->png) r->info = png_create_info_struct(r->png);
    if (!r->png || !r->info) { cpng_reader_free(r); return NULL; }
    png_set_progressive_read_fn(r->png, r, on_info, on_row, on_end);
    return r;
}

int cpng_reader_feed(cpng_reader *r, const uint8_t *data, size_t size) {
    if (r->state.code != CPNG_OK) return r->state.code;
    if (setjmp(r->jump)) return r->state.code;
    png_process_data(r->png, r->info, (png_bytep)data, size);
    return CPNG_OK;
}

const cpng_state *cpng_reader_state(const cpng_reader *r) { return &r->state; }

void cpng_reader_free(cpng_reader *r) {
    if (!r) return;
    if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
    free(r->state.pixels);
    free(r);
}
