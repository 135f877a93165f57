// JPEG encoding into one growing malloc'd buffer that the caller adopts (no copy on the way out).
#include "CJPEG.h"
#include "shim_error.h"
#include <stdlib.h>
#include <jerror.h>

/// Rows per jpeg_write_scanlines call.
#define ROWS_PER_CALL 16

typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;     // malloc'd; handed to the caller on success, freed here on failure
    size_t capacity;
    size_t size;
} growing_destination;

static void init_destination(j_compress_ptr cinfo) { (void)cinfo; }

static boolean empty_output_buffer(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    size_t capacity = dest->capacity * 2;
    uint8_t *grown = realloc(dest->buffer, capacity);
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->buffer = grown;
    dest->pub.next_output_byte = grown + dest->capacity;
    dest->pub.free_in_buffer = capacity - dest->capacity;
    dest->capacity = capacity;
    return TRUE;
}

static void term_destination(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    dest->size = dest->capacity - dest->pub.free_in_buffer;
}

int cjpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                 int subsampling, uint8_t **jpeg, size_t *jpeg_size, char message[200]) {
    return cjpeg_encode_icc(pixels, width, height, channels, quality, progressive, subsampling, NULL, 0,
                            jpeg, jpeg_size, message);
}

int cjpeg_encode_icc(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                     int subsampling, const uint8_t *icc, size_t icc_size, uint8_t **jpeg, size_t *jpeg_size,
                     char message[200]) {
    struct jpeg_compress_struct cinfo;
    shim_error err;
    // Room for the raw pixels plus headers: a JPEG hardly ever outgrows it, and malloc maps big blocks
    // lazily, so the untouched part costs no memory; the buffer shrinks to fit at the end.
    growing_destination dest = {.capacity = (size_t)width * height * channels + 65536};
    *jpeg = NULL;
    *jpeg_size = 0;
    shim_error_install((j_common_ptr)&cinfo, &err);
    if (setjmp(err.jump)) {
        shim_error_message((j_common_ptr)&cinfo, message, 200);
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer);
        return CJPEG_ERROR;
    }
    jpeg_create_compress(&cinfo);
    if (!(dest.buffer = malloc(dest.capacity))) {
        jpeg_destroy_compress(&cinfo);
        return CJPEG_OUT_OF_MEMORY;
    }
    dest.pub.init_destination = init_destination;
    dest.pub.empty_output_buffer = empty_output_buffer;
    dest.pub.term_destination = term_destination;
    dest.pub.next_output_byte = dest.buffer;
    dest.pub.free_in_buffer = dest.capacity;
    cinfo.dest = &dest.pub;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (channels == 3) {
        int h = subsampling == 0 ? 1 : 2, v = subsampling == 2 ? 2 : 1;
        cinfo.comp_info[0].h_samp_factor = h;
        cinfo.comp_info[0].v_samp_factor = v;
        cinfo.comp_info[1].h_samp_factor = cinfo.comp_info[1].v_samp_factor = 1;
        cinfo.comp_info[2].h_samp_factor = cinfo.comp_info[2].v_samp_factor = 1;
    }
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (icc && icc_size > 0 && icc_size <= CJPEG_MAX_ICC_SIZE) {
        jpeg_write_icc_profile(&cinfo, icc, (unsigned int)icc_size);
    }
    size_t stride = (size_t)width * channels;
    JSAMPROW rows[ROWS_PER_CALL];
    while (cinfo.next_scanline < cinfo.image_height) {
        JDIMENSION y = cinfo.next_scanline, left = cinfo.image_height - y;
        JDIMENSION count = left < ROWS_PER_CALL ? left : ROWS_PER_CALL;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)(pixels + stride * (y + i));
        jpeg_write_scanlines(&cinfo, rows, count);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    uint8_t *fitted = realloc(dest.buffer, dest.size ? dest.size : 1);  // big blocks shrink in place (mremap)
    *jpeg = fitted ? fitted : dest.buffer;
    *jpeg_size = dest.size;
    return CJPEG_OK;
}

void cjpeg_free(void *pointer) { free(pointer); }
