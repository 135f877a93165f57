// One JPEG decoder object, fed all at once or in pieces (see CJPEG.h). libjpeg runs as a state machine
// over a suspending source (shim_source.c): each entry point sets its own setjmp, then advances the
// machine until libjpeg suspends for more bytes or the image is done.
#include "CJPEG.h"
#include "shim_budget.h"
#include "shim_error.h"
#include "shim_source.h"
#include "sparse_coefficients.h"
#include <stdlib.h>
#include <string.h>

/// Rows per jpeg_read_scanlines call: libjpeg's largest natural row group (v_samp 2 x 8).
#define ROWS_PER_CALL 16

enum stage {
    STAGE_HEADER,    // markers up to the first SOS (jpeg_read_header may suspend)
    STAGE_SCALE,     // waits for cjpeg_decoder_choose_scale
    STAGE_START,     // jpeg_start_decompress (may suspend); the output size becomes known
    STAGE_ALLOCATE,  // the output buffer: ours, or the caller's in cjpeg_decoder_finish_into
    STAGE_ROWS,      // one scan: rows are decoded as their bytes arrive
    STAGE_SCANS,     // several scans: buffered-image mode, scans go into the coefficient buffer until EOI
    STAGE_OUTPUT,    // several scans, all in: the final output pass
    STAGE_FINISH,    // jpeg_finish_decompress (reads up to EOI; may suspend)
    STAGE_DONE,
};

struct cjpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    shim_error err;
    shim_source src;
    shim_budget budget;          // cinfo->progress: scan cap, work budget, the caller's stop check
    sparse_coefficients sparse;  // hooks in cinfo's memory manager; what it holds is freed by libjpeg's free_pool/self_destruct
    enum stage stage;
    int min_width, min_height;
    int scale_chosen;      // cjpeg_decoder_choose_scale was called
    long long max_pixels;
    long long output_pixels;  // output_width * output_height, once known
    int options;           // CJPEG_SKIP_UNUSED_SCANS, CJPEG_SPARSE_COEFFICIENTS
    unsigned char dc_only[MAX_COMPONENTS];  // components whose output reads only the DC coefficient
    int skipping;          // passing over the entropy-coded bytes of an unused scan
    int rendering;         // an output pass (jpeg_start_output) is in progress
    int hold_for_output;   // whole-file mode: wait for cjpeg_decoder_finish_into's buffer
    int owns_pixels;       // state.pixels is ours to free
    int cmyk;
    int keep_cmyk;         // CMYK output as stored (CJPEG_KEEP_CMYK_WITH_PROFILE and the file has a profile)
    uint8_t *row;          // CMYK scratch row (4 samples per pixel)
    cjpeg_state state;
};

cjpeg_decoder *cjpeg_decoder_new(long long max_pixels, int max_scans, long long max_work_pixels, int options) {
    cjpeg_decoder *d = calloc(1, sizeof(*d));
    if (!d) return NULL;
    d->max_pixels = max_pixels;
    d->options = options;
    shim_error_install((j_common_ptr)&d->cinfo, &d->err);
    if (setjmp(d->err.jump)) {  // jpeg_create_decompress ran out of memory
        jpeg_destroy_decompress(&d->cinfo);
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    shim_source_install(&d->cinfo, &d->src);
    shim_budget_install(&d->cinfo, &d->budget, max_scans, max_work_pixels);
    sparse_coefficients_install(&d->cinfo, &d->sparse);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);  // EXIF
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC
    return d;
}

void cjpeg_decoder_free(cjpeg_decoder *d) {
    if (!d) return;
    jpeg_destroy_decompress(&d->cinfo);
    shim_source_release(&d->src);
    if (d->owns_pixels) free(d->state.pixels);
    free(d->row);
    free(d->state.exif);
    free(d->state.icc);
    free(d);
}

const cjpeg_state *cjpeg_decoder_state(const cjpeg_decoder *d) { return &d->state; }

void cjpeg_decoder_set_stop_check(cjpeg_decoder *d, cjpeg_stop_check check, void *context) {
    d->budget.check = check;
    d->budget.context = check ? context : NULL;
}

// MARK: - Header

static void read_exif(j_decompress_ptr cinfo, cjpeg_state *state) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            state->exif = malloc(m->data_length - 6);
            if (state->exif) {
                state->exif_size = m->data_length - 6;
                memcpy(state->exif, m->data + 6, state->exif_size);
            }
            return;
        }
    }
}

/// At scale 1/8 libjpeg-turbo gives a component the 1x1 IDCT when it is not subsampled relative to the
/// largest sampling factor (luma, or every component of a 4:4:4 or gray file); the 1x1 IDCT reads only
/// the DC coefficient, so that component's AC scans cannot change the output. Subsampled chroma gets a
/// larger IDCT (2x2 for 4:2:0: libjpeg scales it up in the IDCT instead of upsampling), which reads AC
/// coefficients, so its AC scans are always decoded.
static void mark_dc_only_components(cjpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    // Arithmetic decoding has no fast way past a scan (it would decode the skipped bytes as zeros).
    if (!(d->options & CJPEG_SKIP_UNUSED_SCANS) || !cinfo->progressive_mode || cinfo->arith_code) return;
    for (int ci = 0; ci < cinfo->num_components && ci < MAX_COMPONENTS; ci++) {
        d->dc_only[ci] = cinfo->comp_info[ci].DCT_scaled_size == 1;
    }
}

/// After jpeg_read_header: the pixel limit (before anything image-sized is allocated), metadata and the
/// output color space.
static int setup_after_header(cjpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    d->state.image_width = (int)cinfo->image_width;
    d->state.image_height = (int)cinfo->image_height;
    if ((long long)cinfo->image_width * (long long)cinfo->image_height > d->max_pixels) return CJPEG_TOO_LARGE;
    read_exif(cinfo, &d->state);
    JOCTET *icc = NULL;
    unsigned int icc_size = 0;
    if (jpeg_read_icc_profile(cinfo, &icc, &icc_size)) { d->state.icc = icc; d->state.icc_size = icc_size; }

    d->cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    d->keep_cmyk = d->cmyk && d->state.icc && (d->options & CJPEG_KEEP_CMYK_WITH_PROFILE);
    if (d->cmyk) cinfo->out_color_space = JCS_CMYK;
    else if (cinfo->num_components == 1) cinfo->out_color_space = JCS_GRAYSCALE;
    else cinfo->out_color_space = JCS_RGB;
    d->state.header_read = 1;
    return CJPEG_OK;
}

/// After cjpeg_decoder_choose_scale: the DCT scale, and buffered-image mode for files with several scans.
static void setup_scale(cjpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    cinfo->scale_num = 1;
    cinfo->scale_denom = 1;
    if (d->min_width > 0 || d->min_height > 0) {
        for (unsigned int denom = 8; denom > 1; denom /= 2) {
            long w = ((long)cinfo->image_width + denom - 1) / denom, h = ((long)cinfo->image_height + denom - 1) / denom;
            if (w >= d->min_width && h >= d->min_height) { cinfo->scale_denom = denom; break; }
        }
    }
    if (jpeg_has_multiple_scans(cinfo)) {
        cinfo->buffered_image = TRUE;
        d->state.progressive = 1;
        // The components' IDCT sizes (jpeg_start_decompress computes them again, the same way).
        jpeg_calc_output_dimensions(cinfo);
        mark_dc_only_components(d);
        if ((d->options & CJPEG_SPARSE_COEFFICIENTS) && cinfo->progressive_mode && cinfo->scale_denom == 8) {
            sparse_coefficients_enable(&d->sparse, d->dc_only);
        }
    }
}

/// Whether the scan whose header libjpeg just read (JPEG_REACHED_SOS) only holds coefficients the output
/// never reads: an AC scan (Ss > 0; progressive AC scans have one component) of a DC-only component.
static int scan_is_unused(const cjpeg_decoder *d) {
    const struct jpeg_decompress_struct *cinfo = &d->cinfo;
    if (cinfo->Ss == 0 || cinfo->comps_in_scan != 1) return 0;
    int ci = cinfo->cur_comp_info[0]->component_index;
    return ci >= 0 && ci < MAX_COMPONENTS && d->dc_only[ci];
}

// MARK: - Output

/// CMYK samples as stored in JPEG files are inverted (255 = no ink), the convention of Adobe's APP14
/// marker. It is assumed with or without that marker, as djpeg, libvips, Pillow, ImageMagick and the
/// browsers do: files without it come from the same tools, and reading them as plain ink values gives a
/// colour negative. So each channel is the stored C, M or Y value times the stored K, scaled to 255.
static void cmyk_to_rgb(const uint8_t *row, uint8_t *dst, int width) {
    for (int x = 0; x < width; x++) {
        int c = row[x * 4], m = row[x * 4 + 1], y = row[x * 4 + 2], k = row[x * 4 + 3];
        dst[x * 3] = (uint8_t)(c * k / 255);
        dst[x * 3 + 1] = (uint8_t)(m * k / 255);
        dst[x * 3 + 2] = (uint8_t)(y * k / 255);
    }
}

/// Reads output rows straight into `pixels` until the pass is complete (1) or libjpeg suspends (0).
static int read_rows(cjpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    size_t stride = (size_t)d->state.width * (size_t)d->state.channels;
    JSAMPROW rows[ROWS_PER_CALL];
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION y = cinfo->output_scanline, got;
        uint8_t *dst = d->state.pixels + stride * y;
        if (d->cmyk && !d->keep_cmyk) {
            rows[0] = d->row;
            got = jpeg_read_scanlines(cinfo, rows, 1);
            if (got) cmyk_to_rgb(d->row, dst, d->state.width);
        } else {
            JDIMENSION count = cinfo->output_height - y < ROWS_PER_CALL ? cinfo->output_height - y : ROWS_PER_CALL;
            for (JDIMENSION i = 0; i < count; i++) rows[i] = dst + stride * i;
            got = jpeg_read_scanlines(cinfo, rows, count);
        }
        if (!d->state.progressive) d->state.rows = (int)cinfo->output_scanline;
        if (got == 0) return 0;
    }
    return 1;
}

/// Continues the output pass begun with jpeg_start_output: 1 when it is done, 0 when libjpeg suspended.
static int continue_output_pass(cjpeg_decoder *d) {
    if (!read_rows(d) || !jpeg_finish_output(&d->cinfo)) return 0;
    d->rendering = 0;
    d->state.scans_shown = d->cinfo.output_scan_number;
    return 1;
}

// MARK: - The state machine

/// libjpeg's arithmetic decoder cannot suspend (it fails with JERR_CANT_SUSPEND), so an arithmetic-coded
/// file's entropy-coded data is decoded only once all of it is there: no partial images for those.
static int entropy_data_can_suspend(const cjpeg_decoder *d) {
    return !d->cinfo.arith_code || d->src.end_of_data;
}

/// Runs until libjpeg suspends for more bytes, the image is done, or a failure that is not libjpeg's.
static int advance(cjpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    for (;;) {
        switch (d->stage) {
        case STAGE_HEADER: {
            if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) return CJPEG_OK;
            int code = setup_after_header(d);
            if (code != CJPEG_OK) return code;
            d->stage = STAGE_SCALE;
            break;
        }
        case STAGE_SCALE:
            if (!d->scale_chosen) return CJPEG_OK;
            setup_scale(d);
            d->stage = STAGE_START;
            break;
        case STAGE_START:
            if (!jpeg_start_decompress(cinfo)) return CJPEG_OK;
            d->state.width = (int)cinfo->output_width;
            d->state.height = (int)cinfo->output_height;
            d->output_pixels = (long long)cinfo->output_width * (long long)cinfo->output_height;
            if (cinfo->buffered_image) {
                // Buffered-image mode stops right after the first scan's header: that scan is accounted
                // (and passed over when unused) like every later one.
                if (scan_is_unused(d)) { d->skipping = 1; d->state.skipped_scans++; }
                shim_budget_begin_scan(cinfo);
            } else {
                // One scan of every component, decoded straight to the output: its blocks, once.
                shim_budget_add_work(cinfo, (long long)cinfo->image_width * (long long)cinfo->image_height);
            }
            d->state.channels = d->cmyk && !d->keep_cmyk ? 3 : cinfo->output_components;
            if (d->cmyk && !d->keep_cmyk && !(d->row = malloc((size_t)cinfo->output_width * 4))) return CJPEG_OUT_OF_MEMORY;
            d->state.header_done = 1;
            d->stage = STAGE_ALLOCATE;
            break;
        case STAGE_ALLOCATE:
            if (!d->state.pixels) {
                if (d->hold_for_output) return CJPEG_OK;
                d->state.pixels = malloc((size_t)d->state.width * d->state.height * d->state.channels);
                if (!d->state.pixels) return CJPEG_OUT_OF_MEMORY;
                d->owns_pixels = 1;
            }
            d->stage = cinfo->buffered_image ? STAGE_SCANS : STAGE_ROWS;
            break;
        case STAGE_ROWS:
            if (!entropy_data_can_suspend(d)) return CJPEG_OK;
            if (!read_rows(d)) return CJPEG_OK;
            d->stage = STAGE_FINISH;
            break;
        case STAGE_SCANS: {
            if (!entropy_data_can_suspend(d)) return CJPEG_OK;
            if (d->rendering && !continue_output_pass(d)) return CJPEG_OK;
            if (d->skipping) {
                if (!shim_source_skip_to_marker(&d->src)) return CJPEG_OK;
                d->skipping = 0;
            }
            int result = jpeg_consume_input(cinfo);
            if (result == JPEG_SUSPENDED) return CJPEG_OK;
            if (result == JPEG_REACHED_SOS) {
                d->state.scans_complete = cinfo->input_scan_number - 1;
                // Pass over this scan's bytes: the Huffman decoder then meets the next marker at once,
                // warns once and leaves the scan's coefficients alone (only the first MCU may get
                // garbage AC values, which a DC-only output never reads).
                if (scan_is_unused(d)) { d->skipping = 1; d->state.skipped_scans++; }
                shim_budget_begin_scan(cinfo);
            } else if (result == JPEG_ROW_COMPLETED) {
                shim_budget_check(cinfo);  // once per iMCU row of the scan
            } else if (result == JPEG_REACHED_EOI) {
                d->state.scans_complete = cinfo->input_scan_number;
                d->stage = STAGE_OUTPUT;
            }
            break;
        }
        case STAGE_OUTPUT:
            if (!d->rendering) {
                shim_budget_add_work(cinfo, d->output_pixels);
                jpeg_start_output(cinfo, cinfo->input_scan_number);
                d->rendering = 1;
            }
            if (!continue_output_pass(d)) return CJPEG_OK;
            d->stage = STAGE_FINISH;
            break;
        case STAGE_FINISH:
            if (!jpeg_finish_decompress(cinfo)) return CJPEG_OK;
            d->state.finished = 1;
            d->stage = STAGE_DONE;
            break;
        case STAGE_DONE:
            return CJPEG_OK;
        }
    }
}

/// Copies the counters the state reports from the objects that keep them.
static void update_counters(cjpeg_decoder *d) {
    d->state.warnings = d->err.warnings;
    d->state.premature_end = d->err.premature_end;
    d->state.scans = d->state.header_read ? d->cinfo.input_scan_number : 0;
    d->state.work_pixels = d->budget.work;
}

/// Advances and records the outcome in the state. Call only below a setjmp on d->err.jump.
static int run(cjpeg_decoder *d) {
    int code = advance(d);
    update_counters(d);
    d->state.sparse_components = d->sparse.sparse_components;
    d->state.coefficient_bytes = d->sparse.peak_bytes;
    if (code != CJPEG_OK) d->state.code = code;
    return d->state.code;
}

/// After the longjmp of a libjpeg error, or of a stop (shim_budget.h: its code says which).
static int failed_in_libjpeg(cjpeg_decoder *d) {
    update_counters(d);
    if (d->budget.stop_code != CJPEG_OK) return d->state.code = d->budget.stop_code;
    shim_error_message((j_common_ptr)&d->cinfo, d->state.message, sizeof(d->state.message));
    return d->state.code = CJPEG_ERROR;
}

// MARK: - Entry points (each with its own setjmp)

int cjpeg_decoder_append(cjpeg_decoder *d, const uint8_t *data, size_t size) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    if (d->src.end_of_data) return CJPEG_MISUSE;
    if (!shim_source_append(&d->src, data, size)) return d->state.code = CJPEG_OUT_OF_MEMORY;
    if (setjmp(d->err.jump)) return failed_in_libjpeg(d);
    return run(d);
}

int cjpeg_decoder_render(cjpeg_decoder *d) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    if (d->stage != STAGE_SCANS || d->rendering || d->state.scans_complete <= d->state.scans_shown) return CJPEG_OK;
    // A partial image is optional: none when its pass would leave no room for the final one.
    if (!shim_budget_allows(&d->budget, 2 * d->output_pixels)) return CJPEG_OK;
    if (setjmp(d->err.jump)) return failed_in_libjpeg(d);
    shim_budget_add_work(&d->cinfo, d->output_pixels);
    update_counters(d);
    // Only complete scans: the input is past them, so the pass never waits for bytes.
    jpeg_start_output(&d->cinfo, d->state.scans_complete);
    d->rendering = 1;
    if (!continue_output_pass(d)) return CJPEG_OK;  // finished by the next append
    return d->state.code;
}

int cjpeg_decoder_choose_scale(cjpeg_decoder *d, int min_width, int min_height) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    if (d->stage != STAGE_SCALE || d->scale_chosen) return CJPEG_MISUSE;
    d->min_width = min_width;
    d->min_height = min_height;
    d->scale_chosen = 1;
    if (setjmp(d->err.jump)) return failed_in_libjpeg(d);
    return run(d);
}

int cjpeg_decoder_finish(cjpeg_decoder *d) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    d->src.end_of_data = 1;
    if (setjmp(d->err.jump)) return failed_in_libjpeg(d);
    return run(d);
}

int cjpeg_decoder_start(cjpeg_decoder *d, const uint8_t *data, size_t size) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    if (d->stage != STAGE_HEADER || d->src.end_of_data || d->src.pub.bytes_in_buffer) return CJPEG_MISUSE;
    shim_source_borrow(&d->src, data, size);
    d->hold_for_output = 1;
    if (setjmp(d->err.jump)) return failed_in_libjpeg(d);
    return run(d);
}

int cjpeg_decoder_finish_into(cjpeg_decoder *d, uint8_t *pixels) {
    if (d->state.code != CJPEG_OK) return d->state.code;
    if (d->stage != STAGE_ALLOCATE || !d->hold_for_output) return CJPEG_MISUSE;
    d->state.pixels = pixels;
    d->hold_for_output = 0;
    if (setjmp(d->err.jump)) {
        d->state.pixels = NULL;
        return failed_in_libjpeg(d);
    }
    int code = run(d);
    d->state.pixels = NULL;  // lent for this call only
    return code;
}
