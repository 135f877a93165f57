// Sparse virtual block arrays for libjpeg's whole-image coefficient buffer.
//
// Why: a progressive JPEG is decoded in buffered-image mode, where libjpeg keeps every coefficient of the
// image (one JBLOCK = 64 JCOEFs = 128 bytes per 8x8 block and component, pre-zeroed, so all of it is
// resident): 35 MB for a 12 MP 4:2:0 photo, even when the output is a 1/8-scale thumbnail. At scale 1/8
// almost all of those coefficients are zero or never read: components with the 1x1 IDCT (luma in 4:2:0,
// every component in 4:4:4 and gray) are read only for their DC coefficient (their AC scans are skipped,
// see decoder.c), and subsampled chroma holds few nonzero coefficients per block.
//
// How: libjpeg reaches the coefficient buffer only through its memory manager's virtual array methods
// (request_virt_barray, realize_virt_arrays, access_virt_barray), whose contract allows the manager to
// keep just a window of `maxaccess` block rows in memory: the rows an access returns stay valid only until
// the next access to the same array (that is how libjpeg's own backing-store mode works). So the hooks
// below take over the coefficient arrays of an image and keep, per array:
//   - every block row in a compact form: per block a count byte, then (natural-order position, int16 value)
//     for each nonzero coefficient; a NULL row is all zeros (the pre-zero contract);
//     or, for a DC-only component, one int16 DC value per block (its AC coefficients are never read);
//   - a window of `maxaccess` expanded rows of real JBLOCKs, which access_virt_barray returns. Rows that
//     leave the window are compacted again if they were accessed writable.
// Compaction is lossless, so every coefficient libjpeg reads back is the one it stored (for DC-only
// components: every DC coefficient), and the decoded pixels are the same.
//
// Everything else (small and large allocations, libjpeg's own arrays) is chained to libjpeg's manager.
// Every block of memory used here hangs off the sparse_coefficients struct and is freed on
// free_pool(JPOOL_IMAGE) (jpeg_abort, jpeg_finish_decompress) and self_destruct (jpeg_destroy).
// Failures call ERREXIT, which returns through the decoder's setjmp like any libjpeg error.
#include "sparse_coefficients.h"
#include <jerror.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// A compacted block: a count byte and at most 64 (position, value) triples.
#define MAX_COMPACT_BLOCK (1 + DCTSIZE2 * 3)

struct sparse_array {
    sparse_array *next;
    JDIMENSION blocks_per_row, num_rows, max_access;
    int dc_only;
    JCOEF *dc;                    // dc_only: num_rows * blocks_per_row DC values
    unsigned char **rows;         // otherwise: per row its compacted blocks, NULL when all zero
    size_t *row_bytes;            // the size of each compacted row
    // The window: rows window_start ..< window_start + window_rows are expanded in slots[0 ..< window_rows].
    // slots always holds all max_access row buffers of `window` (a permutation), the unused ones last.
    JBLOCK *window;
    JBLOCKROW *slots, *moved, *free_rows;
    unsigned char *dirty, *moved_dirty;  // per slot: accessed writable since it was expanded
    JDIMENSION window_start, window_rows;
};

static sparse_coefficients *sparse_of(j_common_ptr cinfo) { return (sparse_coefficients *)cinfo->client_data; }

static void account(sparse_coefficients *s, size_t added, size_t removed) {
    s->bytes = s->bytes + added - removed;
    if (s->bytes > s->peak_bytes) s->peak_bytes = s->bytes;
}

static sparse_array *find(sparse_coefficients *s, jvirt_barray_ptr ptr) {
    for (sparse_array *a = s->arrays; a; a = a->next) {
        if ((jvirt_barray_ptr)a == ptr) return a;
    }
    return NULL;
}

static void free_array(sparse_array *a) {
    if (a->rows) {
        for (JDIMENSION r = 0; r < a->num_rows; r++) free(a->rows[r]);
    }
    free(a->rows);
    free(a->row_bytes);
    free(a->dc);
    free(a->window);
    free(a->slots);
    free(a->moved);
    free(a->free_rows);
    free(a->dirty);
    free(a->moved_dirty);
    free(a);
}

void sparse_coefficients_release(sparse_coefficients *s) {
    while (s->arrays) {
        sparse_array *next = s->arrays->next;
        free_array(s->arrays);
        s->arrays = next;
    }
    free(s->scratch);
    s->scratch = NULL;
    s->scratch_size = 0;
    free(s->discard);
    s->discard = NULL;
    free(s->discard_rows);
    s->discard_rows = NULL;
    s->bytes = 0;
    s->next_component = 0;
    s->enabled = 0;
}

// MARK: - Rows

/// Bit k set when coefficient k of the block is nonzero.
static inline uint64_t nonzero_mask(const JCOEF *coef) {
    uint64_t mask = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (int k = 0; k < DCTSIZE2; k += 16) {
        __m128i low = _mm_loadu_si128((const __m128i *)(const void *)(coef + k));
        __m128i high = _mm_loadu_si128((const __m128i *)(const void *)(coef + k + 8));
        __m128i zeros = _mm_packs_epi16(_mm_cmpeq_epi16(low, zero), _mm_cmpeq_epi16(high, zero));
        mask |= (uint64_t)((unsigned)_mm_movemask_epi8(zeros) ^ 0xFFFFu) << k;
    }
#else
    for (int k = 0; k < DCTSIZE2; k++) mask |= (uint64_t)(coef[k] != 0) << k;
#endif
    return mask;
}

/// Stores window row `blocks` as row `r` of `a`.
static void compact_row(j_common_ptr cinfo, sparse_coefficients *s, sparse_array *a, JDIMENSION r, JBLOCKROW blocks) {
    JDIMENSION count = a->blocks_per_row;
    if (a->dc_only) {
        JCOEF *dc = a->dc + (size_t)r * count;
        for (JDIMENSION b = 0; b < count; b++) dc[b] = blocks[b][0];
        return;
    }
    unsigned char *out = s->scratch;
    int any = 0;
    for (JDIMENSION b = 0; b < count; b++) {
        const JCOEF *coef = blocks[b];
        uint64_t mask = nonzero_mask(coef);
        unsigned char *n = out++;
        int nonzero = 0;
        for (; mask; mask &= mask - 1, nonzero++, out += 3) {
            int j = __builtin_ctzll(mask);
            out[0] = (unsigned char)j;
            memcpy(out + 1, &coef[j], sizeof(JCOEF));
        }
        *n = (unsigned char)nonzero;
        any |= nonzero;
    }
    size_t size = (size_t)(out - s->scratch);
    if (!any) size = 0;
    if (size != a->row_bytes[r]) {
        if (size == 0) {
            free(a->rows[r]);
            a->rows[r] = NULL;
        } else {
            unsigned char *grown = realloc(a->rows[r], size);
            if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 20);
            a->rows[r] = grown;
        }
        account(s, size, a->row_bytes[r]);
        a->row_bytes[r] = size;
    }
    if (size) memcpy(a->rows[r], s->scratch, size);
}

/// Expands row `r` of `a` into window row `blocks`. A DC-only row sets only the DC coefficients: the
/// output never reads the others, so they keep whatever the buffer held.
static void expand_row(const sparse_array *a, JDIMENSION r, JBLOCKROW blocks) {
    JDIMENSION count = a->blocks_per_row;
    if (a->dc_only) {
        const JCOEF *dc = a->dc + (size_t)r * count;
        for (JDIMENSION b = 0; b < count; b++) blocks[b][0] = dc[b];
        return;
    }
    memset(blocks, 0, (size_t)count * sizeof(JBLOCK));
    const unsigned char *in = a->rows[r];
    if (!in) return;
    for (JDIMENSION b = 0; b < count; b++) {
        int nonzero = *in++;
        for (int i = 0; i < nonzero; i++, in += 3) memcpy(&blocks[b][in[0] & (DCTSIZE2 - 1)], in + 1, sizeof(JCOEF));
    }
}

/// Moves the window so that it holds rows start ..< end: rows leaving it are compacted (if written),
/// rows staying keep their buffers, rows entering are expanded. Like libjpeg's backing store, a forward
/// move puts `end` at the window's end, a backward one puts `start` at its start.
static void move_window(j_common_ptr cinfo, sparse_coefficients *s, sparse_array *a, JDIMENSION start, JDIMENSION end) {
    JDIMENSION new_start = start >= a->window_start ? (end > a->max_access ? end - a->max_access : 0) : start;
    JDIMENSION new_rows = a->num_rows - new_start < a->max_access ? a->num_rows - new_start : a->max_access;
    JDIMENSION old_start = a->window_start, old_rows = a->window_rows, free_count = 0;
    for (JDIMENSION i = 0; i < a->max_access; i++) {
        JDIMENSION r = old_start + i;
        if (i < old_rows && r >= new_start && r < new_start + new_rows) continue;  // stays
        if (i < old_rows && a->dirty[i]) compact_row(cinfo, s, a, r, a->slots[i]);
        a->free_rows[free_count++] = a->slots[i];
    }
    for (JDIMENSION j = 0; j < new_rows; j++) {
        JDIMENSION r = new_start + j;
        if (r >= old_start && r < old_start + old_rows) {
            a->moved[j] = a->slots[r - old_start];
            a->moved_dirty[j] = a->dirty[r - old_start];
        } else {
            a->moved[j] = a->free_rows[--free_count];
            a->moved_dirty[j] = 0;
            expand_row(a, r, a->moved[j]);
        }
    }
    for (JDIMENSION j = new_rows; j < a->max_access; j++) {
        a->moved[j] = a->free_rows[--free_count];
        a->moved_dirty[j] = 0;
    }
    memcpy(a->slots, a->moved, a->max_access * sizeof(JBLOCKROW));
    memcpy(a->dirty, a->moved_dirty, a->max_access);
    a->window_start = new_start;
    a->window_rows = new_rows;
}

// MARK: - The hooks

static jvirt_barray_ptr request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                            JDIMENSION num_rows, JDIMENSION max_access) {
    sparse_coefficients *s = sparse_of(cinfo);
    if (!s->enabled || !cinfo->is_decompressor || pool_id != JPOOL_IMAGE || !pre_zero)
        return s->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, num_rows, max_access);
    // libjpeg's coefficient controller requests one array per component, in component order.
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    int ci = s->next_component++;
    if (ci >= d->num_components || max_access == 0)
        return s->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, num_rows, max_access);
    const jpeg_component_info *comp = &d->comp_info[ci];
    JDIMENSION width = (comp->width_in_blocks + comp->h_samp_factor - 1) / comp->h_samp_factor * comp->h_samp_factor;
    JDIMENSION height = (comp->height_in_blocks + comp->v_samp_factor - 1) / comp->v_samp_factor * comp->v_samp_factor;
    if (blocks_per_row != width || num_rows != height)
        return s->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, num_rows, max_access);

    sparse_array *a = calloc(1, sizeof(*a));
    if (!a) return s->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, num_rows, max_access);
    a->blocks_per_row = blocks_per_row;
    a->num_rows = num_rows;
    a->max_access = max_access < num_rows ? max_access : num_rows;  // libjpeg asks for 5 iMCU rows even of tiny images
    a->dc_only = s->dc_only && s->dc_only[ci];
    size_t storage;
    if (a->dc_only) {
        storage = (size_t)num_rows * blocks_per_row * sizeof(JCOEF);
        a->dc = calloc((size_t)num_rows * blocks_per_row, sizeof(JCOEF));
    } else {
        storage = (size_t)num_rows * (sizeof(unsigned char *) + sizeof(size_t));
        a->rows = calloc(num_rows, sizeof(unsigned char *));
        a->row_bytes = calloc(num_rows, sizeof(size_t));
    }
    if (a->dc_only ? !a->dc : !a->rows || !a->row_bytes) {  // fall back to libjpeg's own array
        free_array(a);
        return s->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, num_rows, max_access);
    }
    account(s, storage, 0);
    a->next = s->arrays;
    s->arrays = a;
    s->sparse_components++;
    return (jvirt_barray_ptr)a;
}

static void realize_virt_arrays(j_common_ptr cinfo) {
    sparse_coefficients *s = sparse_of(cinfo);
    s->realize_virt_arrays(cinfo);
    size_t scratch = 0, discard = 0;
    JDIMENSION discard_rows = 0;
    for (sparse_array *a = s->arrays; a; a = a->next) {
        if (!a->dc_only && (size_t)a->blocks_per_row * MAX_COMPACT_BLOCK > scratch) scratch = (size_t)a->blocks_per_row * MAX_COMPACT_BLOCK;
        if (a->dc_only && (size_t)a->max_access * a->blocks_per_row > discard) discard = (size_t)a->max_access * a->blocks_per_row;
        if (a->dc_only && a->max_access > discard_rows) discard_rows = a->max_access;
        if (a->window) continue;
        size_t window = (size_t)a->max_access * a->blocks_per_row * sizeof(JBLOCK);
        a->window = calloc((size_t)a->max_access * a->blocks_per_row, sizeof(JBLOCK));
        a->slots = malloc(a->max_access * sizeof(JBLOCKROW));
        a->moved = malloc(a->max_access * sizeof(JBLOCKROW));
        a->free_rows = malloc(a->max_access * sizeof(JBLOCKROW));
        a->dirty = calloc(a->max_access, 1);
        a->moved_dirty = calloc(a->max_access, 1);
        if (!a->window || !a->slots || !a->moved || !a->free_rows || !a->dirty || !a->moved_dirty)
            ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 21);
        for (JDIMENSION i = 0; i < a->max_access; i++) a->slots[i] = a->window + (size_t)i * a->blocks_per_row;
        a->window_start = 0;
        a->window_rows = 0;
        account(s, window, 0);
    }
    if (scratch > s->scratch_size) {
        unsigned char *grown = realloc(s->scratch, scratch);
        if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 22);
        s->scratch = grown;
        s->scratch_size = scratch;
    }
    if (discard && !s->discard) {
        s->discard = calloc(discard, sizeof(JBLOCK));
        s->discard_rows = malloc(discard_rows * sizeof(JBLOCKROW));
        if (!s->discard || !s->discard_rows) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 23);
        account(s, discard * sizeof(JBLOCK), 0);
    }
}

static JBLOCKARRAY access_virt_barray(j_common_ptr cinfo, jvirt_barray_ptr ptr, JDIMENSION start_row, JDIMENSION num_rows,
                                      boolean writable) {
    sparse_coefficients *s = sparse_of(cinfo);
    sparse_array *a = find(s, ptr);
    if (!a) return s->access_virt_barray(cinfo, ptr, start_row, num_rows, writable);
    JDIMENSION end = start_row + num_rows;
    if (end < start_row || end > a->num_rows || num_rows > a->max_access) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    if (!a->window) ERREXIT(cinfo, JERR_VIRTUAL_BUG);
    if (a->dc_only && writable && ((j_decompress_ptr)cinfo)->Ss > 0) {
        // An AC scan of a DC-only component: decoder.c skips its entropy-coded data, so libjpeg writes
        // nothing that is ever read (at most garbage AC values into the first MCU). It gets rows of a
        // scratch buffer instead of the window, which saves expanding and compacting every row.
        for (JDIMENSION i = 0; i < num_rows; i++) s->discard_rows[i] = s->discard + (size_t)i * a->blocks_per_row;
        return s->discard_rows;
    }
    if (start_row < a->window_start || end > a->window_start + a->window_rows) move_window(cinfo, s, a, start_row, end);
    if (writable) memset(a->dirty + (start_row - a->window_start), 1, num_rows);
    return a->slots + (start_row - a->window_start);
}

static void free_pool(j_common_ptr cinfo, int pool_id) {
    sparse_coefficients *s = sparse_of(cinfo);
    if (pool_id == JPOOL_IMAGE) sparse_coefficients_release(s);
    s->free_pool(cinfo, pool_id);
}

static void self_destruct(j_common_ptr cinfo) {
    sparse_coefficients *s = sparse_of(cinfo);
    sparse_coefficients_release(s);
    s->self_destruct(cinfo);
}

void sparse_coefficients_install(j_decompress_ptr cinfo, sparse_coefficients *s) {
    struct jpeg_memory_mgr *mem = cinfo->mem;
    s->request_virt_barray = mem->request_virt_barray;
    s->realize_virt_arrays = mem->realize_virt_arrays;
    s->access_virt_barray = mem->access_virt_barray;
    s->free_pool = mem->free_pool;
    s->self_destruct = mem->self_destruct;
    mem->request_virt_barray = request_virt_barray;
    mem->realize_virt_arrays = realize_virt_arrays;
    mem->access_virt_barray = access_virt_barray;
    mem->free_pool = free_pool;
    mem->self_destruct = self_destruct;
    cinfo->client_data = s;
    s->installed = 1;
}

void sparse_coefficients_enable(sparse_coefficients *s, const unsigned char *dc_only) {
    s->enabled = s->installed;
    s->dc_only = dc_only;
    s->next_component = 0;
    s->sparse_components = 0;
    s->peak_bytes = s->bytes;
}
