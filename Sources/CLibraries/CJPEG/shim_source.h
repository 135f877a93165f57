// A libjpeg data source for bytes that arrive in pieces. When libjpeg needs more bytes than have
// arrived, fill_input_buffer returns FALSE (suspension): libjpeg then leaves next_input_byte and
// bytes_in_buffer at the start of the unit it could not finish (a marker, an MCU) and tries again after
// the next append. Appending keeps those unconsumed bytes: it moves them to the front of one growing
// buffer (dropping the consumed prefix) and adds the new bytes after them.
#ifndef CJPEG_SHIM_SOURCE_H
#define CJPEG_SHIM_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_source_mgr pub;
    uint8_t *owned;          ///< appended bytes (malloc'd, freed by shim_source_release); NULL when borrowing
    size_t capacity;
    size_t skip_pending;     ///< bytes skip_input_data asked to skip beyond those that had arrived
    int end_of_data;         ///< no more bytes will come: running out inserts a fake EOI and warns JWRN_JPEG_EOF
} shim_source;

/// Installs `src` (zeroed) as `cinfo`'s data source, with no bytes yet.
void shim_source_install(j_decompress_ptr cinfo, shim_source *src);
/// Copies `size` bytes after the unconsumed ones. Returns 0 when memory runs out.
int shim_source_append(shim_source *src, const uint8_t *data, size_t size);
/// Reads straight from `data` (borrowed: it must outlive every libjpeg call that reads it); it is all the data.
void shim_source_borrow(shim_source *src, const uint8_t *data, size_t size);
/// Moves past entropy-coded bytes up to the next marker other than RSTn. Returns 0 when the bytes so far
/// hold no such marker (the search continues after the next append); at the end of the data, 1.
int shim_source_skip_to_marker(shim_source *src);
void shim_source_release(shim_source *src);
#endif
