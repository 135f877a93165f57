#include "shim_error.h"
#include <jerror.h>

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

void shim_error_install(j_common_ptr common, shim_error *err) {
    common->err = jpeg_std_error(&err->base);
    err->base.error_exit = shim_error_exit;
    err->base.emit_message = shim_emit_message;
    err->base.output_message = shim_output_message;
    err->warnings = 0;
    err->premature_end = 0;
}

void shim_error_message(j_common_ptr common, char *message, size_t size) {
    char buffer[JMSG_LENGTH_MAX];
    common->err->format_message(common, buffer);
    snprintf(message, size, "%s", buffer);
}
