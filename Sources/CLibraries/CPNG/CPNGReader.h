// The progressive reader's state, shared by the files of this target (not part of the public header).
#ifndef CPNG_READER_H
#define CPNG_READER_H
#include "CPNG.h"
#include <setjmp.h>

struct cpng_reader {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    long long max_pixels;
    cpng_state state;
    cpng_stream_decision decide;
    cpng_row_sink sink;
    void *sink_context;
    cpng_stop_check stop;
    void *stop_context;
    int rows_since_check;
    int expand_gamma_gray; // gray with gAMA (no sRGB, no iCCP) decodes as RGB (cpng_reader_expand_gamma_gray)
    int defer_pixels;   // on_info leaves `pixels` NULL: the caller lends a buffer with cpng_reader_use_pixels
    int borrowed;       // `pixels` belongs to the caller: never freed here
    int untransformed;  // libpng hands over the stored bytes as they are (set from IHDR, before libpng's
                        // png_read_update_info rewrites the info to the output format)
};

#endif
