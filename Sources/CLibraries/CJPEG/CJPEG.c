// libjpeg reports errors by calling error_exit, which must not return. We longjmp back to a setjmp in
// this file only: no libjpeg longjmp ever crosses a Swift frame.
#include "CJPEG.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int warnings;
    int premature_end;
} shim_error;

static void shim_error_exit(j_common_ptr cinfo) {
    shim_error *err = (shim_error *)cinfo->err;
    longjmp(err->jump, 1);
}

static void shim_emit_message(j_common_ptr cinfo, int level) {
    shim_error *err = (shim_error *)cinfo->err;
    if (level < 0) {  // a warning; level >= 0 are trace messages
        err->warnings++;
        if (err->base.msg_code == JWRN_JPEG_EOF) err->premature_end = 1;
    }
}

static void shim_output_message(j_common_ptr cinfo) { (void)cinfo; }  // never print

static void copy_message(j_common_ptr cinfo, char message[200]) {
    char buffer[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, buffer);
    snprintf(message, 200, "%s", buffer);
}

static void read_exif(j_decompress_ptr cinfo, cjpeg_decoded *out) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            out->exif_size = m->data_length - 6;
            out->exif = malloc(out->exif_size);
            if (out->exif) memcpy(out->exif, m->data + 6, out->exif_size); else out->exif_size = 0;
            return;
        }
    }
}

void cjpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height, long long max_pixels,
                  cjpeg_decoded *out) {
    memset(out, 0, sizeof(*out));
    struct jpeg_decompress_struct cinfo;
    shim_error err;
    uint8_t *row = NULL;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = shim_error_exit;
    err.base.emit_message = shim_emit_message;
    err.base.output_message = shim_output_message;
    err.warnings = 0;
    err.premature_end = 0;
    if (setjmp(err.jump)) {
        copy_message((j_common_ptr)&cinfo, out->message);
        out->code = CJPEG_ERROR;
        out->warnings = err.warnings;
        out->premature_end = err.premature_end;
        free(row);
        free(out->pixels); out->pixels = NULL;
        jpeg_destroy_decompress(&cinfo);
        return;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    out->image_width = (int)cinfo.image_width;
    out->image_height = (int)cinfo.image_height;
    if ((long long)cinfo.image_width * (long long)cinfo.image_height > max_pixels) {
        out->code = CJPEG_TOO_LARGE;
        jpeg_destroy_decompress(&cinfo);
        return;
    }
    read_exif(&cinfo, out);
    JOCTET *icc = NULL; unsigned int icc_len = 0;
    if (jpeg_read_icc_profile(&cinfo, &icc, &icc_len)) { out->icc = icc; out->icc_size = icc_len; }

    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    if (cmyk) cinfo.out_color_space = JCS_CMYK;
    else if (cinfo.num_components == 1) cinfo.out_color_space = JCS_GRAYSCALE;
    else cinfo.out_color_space = JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 1;
    if (min_width > 0 || min_height > 0) {
        for (int denom = 8; denom > 1; denom /= 2) {
            long w = ((long)cinfo.image_width + denom - 1) / denom, h = ((long)cinfo.image_height + denom - 1) / denom;
            if (w >= min_width && h >= min_height) { cinfo.scale_denom = denom; break; }
        }
    }
    jpeg_start_decompress(&cinfo);
    int channels = cmyk ? 3 : (int)cinfo.output_components;
    out->width = (int)cinfo.output_width;
    out->height = (int)cinfo.output_height;
    out->channels = channels;
    size_t stride = (size_t)out->width * channels;
    out->pixels = malloc(stride * out->height);
    row = malloc((size_t)out->width * cinfo.output_components);
    if (!out->pixels || !row) {
        free(row); free(out->pixels); out->pixels = NULL;
        out->code = CJPEG_OUT_OF_MEMORY;
        jpeg_destroy_decompress(&cinfo);
        return;
    }
    // Adobe CMYK JPEGs store inverted values; the Adobe marker says so.
    int inverted = cinfo.saw_Adobe_marker;
    JSAMPROW rows[16];
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned int y = cinfo.output_scanline;
        if (cmyk) {
            rows[0] = row;
            if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) break;
            uint8_t *dst = out->pixels + stride * y;
            for (int x = 0; x < out->width; x++) {
                int c = row[x * 4], m = row[x * 4 + 1], yy = row[x * 4 + 2], k = row[x * 4 + 3];
                if (!inverted) { c = 255 - c; m = 255 - m; yy = 255 - yy; k = 255 - k; }
                dst[x * 3] = (uint8_t)(c * k / 255);
                dst[x * 3 + 1] = (uint8_t)(m * k / 255);
                dst[x * 3 + 2] = (uint8_t)(yy * k / 255);
            }
        } else {
            // Decode straight into the output, several rows per call (libjpeg's natural row group).
            unsigned int count = cinfo.output_height - y < 16 ? cinfo.output_height - y : 16;
            for (unsigned int i = 0; i < count; i++) rows[i] = out->pixels + stride * (y + i);
            if (jpeg_read_scanlines(&cinfo, rows, count) == 0) break;
        }
        out->rows_decoded = (int)cinfo.output_scanline;
    }
    jpeg_finish_decompress(&cinfo);
    free(row);
    out->warnings = err.warnings;
    out->premature_end = err.premature_end;
    jpeg_destroy_decompress(&cinfo);
    out->code = CJPEG_OK;
}

int cjpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                 int subsampling, uint8_t **jpeg, size_t *jpeg_size, char message[200]) {
    struct jpeg_compress_struct cinfo;
    shim_error err;
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    *jpeg = NULL; *jpeg_size = 0;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = shim_error_exit;
    err.base.emit_message = shim_emit_message;
    err.base.output_message = shim_output_message;
    if (setjmp(err.jump)) {
        copy_message((j_common_ptr)&cinfo, message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return CJPEG_ERROR;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &buffer_size);
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
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * width * channels);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *jpeg = buffer;
    *jpeg_size = buffer_size;
    return CJPEG_OK;
}

void cjpeg_free(void *pointer) { free(pointer); }
