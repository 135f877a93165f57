// PNG row reconstruction. Sub, Average and Paeth depend on the pixel to the left, so a row is a chain of
// pixels; for 3- and 4-byte pixels each step works on a whole pixel at once in SSE2 (x86-64's baseline),
// which is what makes this several times faster than a byte-at-a-time loop. Other pixel sizes and other
// architectures use the byte loops, which follow the specification's formulas directly.
#include "CPNGUnfilter.h"
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { FILTER_NONE = 0, FILTER_SUB = 1, FILTER_UP = 2, FILTER_AVERAGE = 3, FILTER_PAETH = 4 };

static void up_bytes(uint8_t *row, const uint8_t *prior, size_t size) {
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= size; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(row + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(prior + i));
        _mm_storeu_si128((__m128i *)(row + i), _mm_add_epi8(x, b));
    }
#endif
    for (; i < size; i++) row[i] = (uint8_t)(row[i] + prior[i]);
}

static int paeth_predictor(int a, int b, int c) {
    int pa = b - c, pb = a - c, pc = pa + pb;
    pa = pa < 0 ? -pa : pa;
    pb = pb < 0 ? -pb : pb;
    pc = pc < 0 ? -pc : pc;
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/// The specification's byte loops: any pixel size, any architecture.
static void unfilter_bytes(int filter, uint8_t *row, const uint8_t *prior, size_t size, size_t bpp) {
    switch (filter) {
    case FILTER_SUB:
        for (size_t i = bpp; i < size; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        break;
    case FILTER_AVERAGE:
        for (size_t i = 0; i < size; i++) {
            int a = i >= bpp ? row[i - bpp] : 0;
            row[i] = (uint8_t)(row[i] + ((a + prior[i]) >> 1));
        }
        break;
    case FILTER_PAETH:
        for (size_t i = 0; i < size; i++) {
            int a = i >= bpp ? row[i - bpp] : 0, c = i >= bpp ? prior[i - bpp] : 0;
            row[i] = (uint8_t)(row[i] + paeth_predictor(a, prior[i], c));
        }
        break;
    default: break;
    }
}

#if defined(__SSE2__)
/// One pixel of `bpp` (3 or 4) bytes in the low lanes, the rest zero. The constant `bpp` of each caller
/// makes the copies plain moves.
static inline __attribute__((always_inline)) __m128i load_pixel(const uint8_t *p, size_t bpp) {
    uint32_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_cvtsi32_si128((int)v);
}

static inline __attribute__((always_inline)) void store_pixel(uint8_t *p, __m128i v, size_t bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    memcpy(p, &x, bpp);
}

static inline __attribute__((always_inline)) __m128i abs16(__m128i x) {
    return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x));
}

/// Sub, Average and Paeth a pixel at a time; the channels of one pixel are the lanes.
static inline __attribute__((always_inline)) void unfilter_pixels(
    int filter, uint8_t *row, const uint8_t *prior, size_t size, size_t bpp) {
    const __m128i zero = _mm_setzero_si128();
    __m128i a = zero;  // the reconstructed pixel to the left: bytes for Sub, 16-bit lanes otherwise
    __m128i c = zero;  // the pixel above-left, 16-bit lanes
    switch (filter) {
    case FILTER_SUB:
        for (size_t i = 0; i < size; i += bpp) {
            a = _mm_add_epi8(load_pixel(row + i, bpp), a);
            store_pixel(row + i, a, bpp);
        }
        break;
    case FILTER_AVERAGE:
        for (size_t i = 0; i < size; i += bpp) {
            __m128i b = _mm_unpacklo_epi8(load_pixel(prior + i, bpp), zero);
            __m128i mean = _mm_srli_epi16(_mm_add_epi16(a, b), 1);
            __m128i x = _mm_add_epi8(load_pixel(row + i, bpp), _mm_packus_epi16(mean, mean));
            store_pixel(row + i, x, bpp);
            a = _mm_unpacklo_epi8(x, zero);
        }
        break;
    case FILTER_PAETH: {
        // The chain from one pixel to the next is what limits the speed, so only the steps that need
        // the left pixel `a` sit on it, and the result stays in 16-bit lanes until it is stored.
        const __m128i low_byte = _mm_set1_epi16(0xFF);
        for (size_t i = 0; i < size; i += bpp) {
            __m128i b = _mm_unpacklo_epi8(load_pixel(prior + i, bpp), zero);
            __m128i raw = _mm_unpacklo_epi8(load_pixel(row + i, bpp), zero);
            // The predictor p = a + b - c, compared with a, b and c: |b - c|, |a - c|, |a + b - 2c|.
            __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
            __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
            // a when pa is no more than pb and pc, else b when pb is no more than pc, else c.
            __m128i not_a = _mm_cmpgt_epi16(pa, _mm_min_epi16(pb, pc));
            __m128i not_b = _mm_cmpgt_epi16(pb, pc);
            __m128i b_or_c = _mm_or_si128(_mm_and_si128(not_b, c), _mm_andnot_si128(not_b, b));
            __m128i predicted = _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
            a = _mm_and_si128(_mm_add_epi16(raw, predicted), low_byte);
            store_pixel(row + i, _mm_packus_epi16(a, a), bpp);
            c = b;
        }
        break;
    }
    default: break;
    }
}
#endif

int cpng_unfilter_row(int filter, uint8_t *row, const uint8_t *prior, size_t size, int bpp) {
    if (filter < FILTER_NONE || filter > FILTER_PAETH || bpp < 1) return 0;
    if (filter == FILTER_NONE) return 1;
    if (filter == FILTER_UP) {
        up_bytes(row, prior, size);
        return 1;
    }
#if defined(__SSE2__)
    if (bpp == 4) {
        unfilter_pixels(filter, row, prior, size, 4);
        return 1;
    }
    if (bpp == 3) {
        unfilter_pixels(filter, row, prior, size, 3);
        return 1;
    }
#endif
    unfilter_bytes(filter, row, prior, size, (size_t)bpp);
    return 1;
}
