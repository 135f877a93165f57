// Sparse storage for libjpeg's whole-image coefficient buffer (see sparse_coefficients.c for why).
#ifndef CJPEG_SPARSE_COEFFICIENTS_H
#define CJPEG_SPARSE_COEFFICIENTS_H
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct sparse_array sparse_array;

/// The hooks' state, embedded in the decoder (one per decompress object). Every block of memory the
/// sparse arrays use hangs off `arrays` and is freed by `sparse_coefficients_release`, which libjpeg's
/// free_pool(JPOOL_IMAGE) and self_destruct call through the hooks.
typedef struct {
    // libjpeg's own memory manager methods, chained to for everything that is not ours.
    jvirt_barray_ptr (*request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize_virt_arrays)(j_common_ptr);
    JBLOCKARRAY (*access_virt_barray)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    void (*free_pool)(j_common_ptr, int);
    void (*self_destruct)(j_common_ptr);
    int installed;
    int enabled;                       ///< take the next image's coefficient arrays
    const unsigned char *dc_only;      ///< per component: the output reads only the DC coefficient and
                                       ///< no AC scan of it is ever decoded (owned by the decoder)
    int next_component;                ///< the component the next coefficient array request is for
    sparse_array *arrays;              ///< ours, in a list (malloc'd)
    unsigned char *scratch;            ///< one compacted row being built (malloc'd)
    size_t scratch_size;
    JBLOCK *discard;                   ///< rows handed out for AC scans of DC-only components (malloc'd)
    JBLOCKROW *discard_rows;           ///< (malloc'd)
    size_t bytes, peak_bytes;          ///< memory the arrays hold now / at most
    int sparse_components;             ///< coefficient arrays taken over for the current image
} sparse_coefficients;

/// Hooks `sparse` into `cinfo`'s memory manager (once, after jpeg_create_decompress; uses
/// cinfo->client_data). Until `sparse_coefficients_enable`, every call goes straight to libjpeg's.
void sparse_coefficients_install(j_decompress_ptr cinfo, sparse_coefficients *sparse);

/// After jpeg_read_header, before jpeg_start_decompress: the coefficient arrays of this image are kept
/// sparse. `dc_only` (num_components entries, staying valid) marks components kept as DC values alone.
void sparse_coefficients_enable(sparse_coefficients *sparse, const unsigned char *dc_only);

/// Frees everything the sparse arrays hold (also called by the hooks on free_pool/self_destruct).
void sparse_coefficients_release(sparse_coefficients *sparse);
#endif
