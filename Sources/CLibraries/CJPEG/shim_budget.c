#include "shim_budget.h"
#include "shim_error.h"
#include <limits.h>

static void stop(j_decompress_ptr cinfo, int code) {
    shim_budget *budget = (shim_budget *)cinfo->progress;
    budget->stop_code = code;
    longjmp(((shim_error *)cinfo->err)->jump, 1);
}

void shim_budget_check(j_decompress_ptr cinfo) {
    shim_budget *budget = (shim_budget *)cinfo->progress;
    if (budget->check && budget->check(budget->context)) stop(cinfo, CJPEG_STOPPED);
}

// libjpeg calls it once per jpeg_read_scanlines call and per iMCU row of the passes it runs on its own
// (jpeg_start_decompress absorbing a multi-scan file, which this decoder never asks for).
static void progress_monitor(j_common_ptr cinfo) { shim_budget_check((j_decompress_ptr)cinfo); }

void shim_budget_install(j_decompress_ptr cinfo, shim_budget *budget, int max_scans, long long max_work) {
    budget->progress.progress_monitor = progress_monitor;
    budget->max_scans = max_scans;
    budget->max_work = max_work;
    cinfo->progress = &budget->progress;
}

int shim_budget_allows(const shim_budget *budget, long long pixels) {
    return pixels <= budget->max_work - budget->work;
}

void shim_budget_add_work(j_decompress_ptr cinfo, long long pixels) {
    shim_budget *budget = (shim_budget *)cinfo->progress;
    if (!shim_budget_allows(budget, pixels)) {
        budget->work = budget->work > LLONG_MAX - pixels ? LLONG_MAX : budget->work + pixels;
        stop(cinfo, CJPEG_TOO_MUCH_WORK);
    }
    budget->work += pixels;
}

void shim_budget_begin_scan(j_decompress_ptr cinfo) {
    shim_budget *budget = (shim_budget *)cinfo->progress;
    if (cinfo->input_scan_number > budget->max_scans) stop(cinfo, CJPEG_TOO_MANY_SCANS);
    shim_budget_check(cinfo);
    long long image_pixels = (long long)cinfo->image_width * (long long)cinfo->image_height;
    // Samples per MCU of the scan's components against those of the whole image.
    long long scan_samples = 0, image_samples = 0;
    for (int i = 0; i < cinfo->comps_in_scan; i++) {
        scan_samples += (long long)cinfo->cur_comp_info[i]->h_samp_factor * cinfo->cur_comp_info[i]->v_samp_factor;
    }
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        image_samples += (long long)cinfo->comp_info[ci].h_samp_factor * cinfo->comp_info[ci].v_samp_factor;
    }
    if (image_samples <= 0) return;
    // Rounded up, so a scan never costs nothing; image_pixels < 2^32 and scan_samples <= 4 * 16 cannot overflow.
    shim_budget_add_work(cinfo, (image_pixels * scan_samples + image_samples - 1) / image_samples);
}
