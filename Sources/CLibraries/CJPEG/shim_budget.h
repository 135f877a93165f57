// The work budget and stop check of one decoder: libjpeg's progress monitor plus the hooks the decoder's
// own loops call per scan, iMCU row and output pass. Going over a limit, or the caller's stop check
// answering "stop", ends the decode through the error manager's longjmp (shim_error.h), so it returns to
// the C entry point that started the work like any libjpeg error, never across a Swift frame.
#ifndef CJPEG_SHIM_BUDGET_H
#define CJPEG_SHIM_BUDGET_H
#include <stdio.h>
#include <jpeglib.h>
#include "CJPEG.h"

typedef struct {
    struct jpeg_progress_mgr progress;  ///< installed as cinfo->progress; first, so the monitor finds the rest
    cjpeg_stop_check check;             ///< the caller's, or NULL
    void *context;
    int max_scans;
    long long max_work;
    long long work;                     ///< output pixels of work accounted so far
    int stop_code;                      ///< why the decode stopped (a CJPEG_ code), or CJPEG_OK
} shim_budget;

/// Installs `budget` (zeroed) as `cinfo`'s progress monitor with these limits.
void shim_budget_install(j_decompress_ptr cinfo, shim_budget *budget, int max_scans, long long max_work);

/// Asks the stop check; stops with CJPEG_STOPPED when it says so.
void shim_budget_check(j_decompress_ptr cinfo);

/// Accounts `pixels` of work; stops with CJPEG_TOO_MUCH_WORK past the limit (before doing it).
void shim_budget_add_work(j_decompress_ptr cinfo, long long pixels);

/// Whether `pixels` more work stays within the limit (for optional work, like partial images).
int shim_budget_allows(const shim_budget *budget, long long pixels);

/// A scan whose header libjpeg just read: stops with CJPEG_TOO_MANY_SCANS past the scan cap, then accounts
/// its work: the image's stored pixels times the share of the image's samples in the scan. Decoding a scan
/// walks every block of its components whatever the output scale, and so does passing over a skipped one
/// (libjpeg still visits each block, only without Huffman decoding): about 10 ms a scan at 100 MP either
/// way, so a scan costs the same for a thumbnail as at full size.
void shim_budget_begin_scan(j_decompress_ptr cinfo);
#endif
