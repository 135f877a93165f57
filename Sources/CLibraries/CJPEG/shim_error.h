// The error manager every libjpeg object in this target uses. libjpeg reports a fatal error by calling
// error_exit, which must not return: ours longjmps to `jump`, which each C entry point sets with its own
// setjmp, so no longjmp ever crosses a Swift frame.
#ifndef CJPEG_SHIM_ERROR_H
#define CJPEG_SHIM_ERROR_H
#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int warnings;        ///< libjpeg warnings seen (corrupt data it recovered from)
    int premature_end;   ///< JWRN_JPEG_EOF seen: the data ended before the image did
} shim_error;

/// Installs `err` as `common`'s error manager: fatal errors longjmp to `err->jump`, nothing is printed.
void shim_error_install(j_common_ptr common, shim_error *err);

/// libjpeg's message for the last error, truncated to `size` bytes.
void shim_error_message(j_common_ptr common, char *message, size_t size);
#endif
