// AVX2 versions of the fixed-point resampler's inner loops; see include/CResamplingKernels.h for what
// each computes. Integer sums wrap as the Swift kernels' `&+` do (they are done in unsigned arithmetic
// where C would otherwise call an overflow undefined), so both give the same bytes.
#include "CResamplingKernels.h"

#include <string.h>

// Float expressions are rounded step by step, as Swift rounds them (no fused multiply-add).
#pragma clang fp contract(off)

// Swift's `min` and `max` on Float, ties and signed zeros included: `min(x, y)` is `y < x ? y : x`,
// `max(x, y)` is `y >= x ? y : x`.
static inline float swift_min(float x, float y) { return y < x ? y : x; }
static inline float swift_max(float x, float y) { return y >= x ? y : x; }

// The Float engine's rounding of a level to a byte (`byte(_:)` in SeparableResampler.swift).
static inline uint8_t to_byte(float value) { return (uint8_t)(swift_min(255.0f, swift_max(0.0f, value)) + 0.5f); }

// One premultiplied pixel (levels) written as straight RGBA bytes, exactly as `writePixel` in
// FixedPointResampler+Kernels.swift; 0 (nothing written) when a colour byte could differ from the Float
// engine's by a level or more for an error within `e`.
static int write_pixel(const float p[4], float e, uint8_t *out) {
    float alpha = p[3];
    if (alpha >= 0.5f + e) {
        float a_low = swift_min(alpha - e, 255.0f), a_high = swift_min(alpha + e, 255.0f);
        for (int c = 0; c < 3; c++) {
            float c_low = p[c] - e, c_high = p[c] + e;
            float low = c_low / (c_low >= 0 ? a_high : a_low), high = c_high / (c_high >= 0 ? a_low : a_high);
            float width = swift_min(swift_max(high, 0.0f), 1.0f) - swift_min(swift_max(low, 0.0f), 1.0f);
            if (width * 255.0f >= 0.99f) return 0;
        }
    } else if (alpha > 0.5f - e) {
        return 0;
    }
    float clamped = swift_min(255.0f, swift_max(0.0f, alpha));
    if (clamped > 0) {
        float unpremultiply = 255.0f / clamped;
        out[0] = to_byte(p[0] * unpremultiply);
        out[1] = to_byte(p[1] * unpremultiply);
        out[2] = to_byte(p[2] * unpremultiply);
    } else {
        out[0] = out[1] = out[2] = 0;
    }
    out[3] = to_byte(clamped);
    return 1;
}

#if defined(__x86_64__)
static intptr_t unpremultiply_rgba_avx2(const int32_t *sums, intptr_t pixels, float to_levels, float error_bound,
                                        uint8_t *out, int32_t *unsure, intptr_t *done);
#endif

intptr_t wi_unpremultiply_rgba(const int32_t *sums, intptr_t pixels, float to_levels, float error_bound,
                               int avx2, uint8_t *out, int32_t *unsure) {
    intptr_t count = 0, x = 0;
#if defined(__x86_64__)
    if (avx2) count = unpremultiply_rgba_avx2(sums, pixels, to_levels, error_bound, out, unsure, &x);
#endif
    for (; x < pixels; x++) {
        float levels[4];
        for (int c = 0; c < 4; c++) levels[c] = (float)sums[x * 4 + c] * to_levels + 128.0f;
        if (!write_pixel(levels, error_bound, out + x * 4)) unsure[count++] = (int32_t)x;
    }
    return count;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

int wi_resampling_has_avx2(void) {
    // CPUID leaf 7 (EBX bit 5: AVX2) and XGETBV (the OS saves the YMM registers), read directly: the
    // compiler's `__builtin_cpu_supports` needs a runtime helper that not every link provides.
    unsigned eax, ebx, ecx, edx;
    __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
    int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
    if (!osxsave || !avx) return 0;
    unsigned xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) return 0;
    __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
    return (ebx >> 5) & 1;
}

// Four-lane pixels p0 p1 as Int16 (r0 g0 b0 a0 r1 g1 b1 a1) reordered to pairs (r0 r1 g0 g1 ...), what
// `vpmaddwd` multiplies by a pair of coefficients (c0 c1) and adds per 32-bit lane.
#define PAIR_BYTES 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15

// The low 16 bits of each 32-bit lane, packed into the low 8 bytes (truncating, as Swift's
// `truncatingIfNeeded`).
#define LOW_HALVES 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1

static inline int32_t wrapping_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrapping_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }

AVX2 void wi_widen_premultiplying_avx2(const uint8_t *src, int16_t *out, intptr_t start, intptr_t end) {
    const __m256i alphas = _mm256_setr_epi8(6, 7, 6, 7, 6, 7, -1, -1, 14, 15, 14, 15, 14, 15, -1, -1,
                                            6, 7, 6, 7, 6, 7, -1, -1, 14, 15, 14, 15, 14, 15, -1, -1);
    const __m256i opaque = _mm256_setr_epi16(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
    const __m256i centre = _mm256_set1_epi16(32512);
    intptr_t x = start;
    for (; x + 4 <= end; x += 4) {
        __m256i p = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + x * 4)));
        __m256i factors = _mm256_or_si256(_mm256_shuffle_epi8(p, alphas), opaque);
        __m256i premultiplied = _mm256_sub_epi16(_mm256_mullo_epi16(p, factors), centre);
        _mm256_storeu_si256((__m256i *)(out + x * 4), premultiplied);
    }
    for (; x < end; x++) {
        const uint8_t *s = src + x * 4;
        int16_t *o = out + x * 4;
        uint16_t a = s[3];
        o[0] = (int16_t)(uint16_t)(s[0] * a - 32512);
        o[1] = (int16_t)(uint16_t)(s[1] * a - 32512);
        o[2] = (int16_t)(uint16_t)(s[2] * a - 32512);
        o[3] = (int16_t)(uint16_t)(a * 255 - 32512);
    }
}

static inline AVX2 int32_t horizontal_sum(__m128i v) {
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(v);
}

AVX2 void wi_horizontal_gray_avx2(const int16_t *src, const int16_t *coefficients, const intptr_t *first,
                                  intptr_t taps, intptr_t width, int32_t shift, int32_t offset, int16_t *out) {
    const int32_t bias = 1 << (shift - 1);
    for (intptr_t x = 0; x < width; x++) {
        const int16_t *p = src + first[x], *c = coefficients + x * taps;
        __m256i acc = _mm256_setzero_si256();
        intptr_t t = 0;
        for (; t + 16 <= taps; t += 16) {
            __m256i products = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(p + t)),
                                                 _mm256_loadu_si256((const __m256i *)(c + t)));
            acc = _mm256_add_epi32(acc, products);
        }
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        for (; t < taps; t += 8) {
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(p + t)),
                                                    _mm_loadu_si128((const __m128i *)(c + t))));
        }
        out[x] = (int16_t)wrapping_add(wrapping_add(horizontal_sum(sum), bias) >> shift, offset);
    }
}

AVX2 void wi_pair_pixels_avx2(const int16_t *widened, int16_t *even, int16_t *odd, intptr_t start,
                              intptr_t end) {
    const __m256i pairs = _mm256_setr_epi8(PAIR_BYTES, PAIR_BYTES);
    for (intptr_t j = start; j < end; j += 2) {
        __m256i from_even = _mm256_loadu_si256((const __m256i *)(widened + j * 8));
        __m256i from_odd = _mm256_loadu_si256((const __m256i *)(widened + j * 8 + 4));
        _mm256_storeu_si256((__m256i *)(even + j * 8), _mm256_shuffle_epi8(from_even, pairs));
        _mm256_storeu_si256((__m256i *)(odd + j * 8), _mm256_shuffle_epi8(from_odd, pairs));
    }
}

AVX2 void wi_pair_rgb_avx2(const uint8_t *src, intptr_t span_start, intptr_t span_end, int16_t *even,
                           int16_t *odd, intptr_t start, intptr_t end) {
    // Pixels p..p+4 of a 16-byte load (p at byte 0) to the pairs (p, p+1), (p+2, p+3) and (p+1, p+2),
    // (p+3, p+4), each r r g g b b 0 0 as bytes, widened to Int16 below.
    const __m128i even_order = _mm_setr_epi8(0, 3, 1, 4, 2, 5, -1, -1, 6, 9, 7, 10, 8, 11, -1, -1);
    const __m128i odd_order = _mm_setr_epi8(3, 6, 4, 7, 5, 8, -1, -1, 9, 12, 10, 13, 11, 14, -1, -1);
    for (intptr_t j = start; j < end; j += 2) {
        intptr_t p = 2 * j;
        if (p >= span_start && p * 3 + 16 <= span_end * 3) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(src + p * 3));
            _mm256_storeu_si256((__m256i *)(even + j * 8), _mm256_cvtepu8_epi16(_mm_shuffle_epi8(bytes, even_order)));
            _mm256_storeu_si256((__m256i *)(odd + j * 8), _mm256_cvtepu8_epi16(_mm_shuffle_epi8(bytes, odd_order)));
            continue;
        }
        // Near the span's ends: pixels outside it are 0, as a widened row holds them.
        for (intptr_t k = 0; k < 2; k++) {
            int16_t *e = even + (j + k) * 8, *o = odd + (j + k) * 8;
            for (intptr_t half = 0; half < 2; half++) {
                intptr_t q = p + 2 * k + half;
                int inside_even = q >= span_start && q < span_end, inside_odd = q + 1 >= span_start && q + 1 < span_end;
                for (intptr_t c = 0; c < 3; c++) {
                    e[c * 2 + half] = inside_even ? src[q * 3 + c] : 0;
                    o[c * 2 + half] = inside_odd ? src[(q + 1) * 3 + c] : 0;
                }
                e[6 + half] = 0;
                o[6 + half] = 0;
            }
        }
    }
}

// The four lane sums of `taps` (even) pixels from the pair that starts at source pixel `first`: four
// taps (two pairs, 32 bytes) per `vpmaddwd` against their coefficient pairs, then the last two.
static inline AVX2 __m128i pair_sum(const int16_t *even, const int16_t *odd, const int32_t *c, intptr_t first,
                                    intptr_t taps) {
    const int16_t *p = ((first & 1) ? odd : even) + (first >> 1) * 8;
    __m256i acc = _mm256_setzero_si256();
    intptr_t t = 0;
    for (; t + 4 <= taps; t += 4) {
        __m256i products = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(p + t * 4)),
                                             _mm256_loadu_si256((const __m256i *)(c + t * 2)));
        acc = _mm256_add_epi32(acc, products);
    }
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    if (t < taps) {
        sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(p + t * 4)),
                                                _mm_loadu_si128((const __m128i *)(c + t * 2))));
    }
    return sum;
}

// As `pair_sum` for two outputs at once, `a` in the low 128 bits of the result and `b` in the high: two
// independent chains of sums, and one reduction for both.
static inline AVX2 __m256i pair_sums2(const int16_t *even, const int16_t *odd, const int32_t *ca, const int32_t *cb,
                                      intptr_t first_a, intptr_t first_b, intptr_t taps) {
    const int16_t *pa = ((first_a & 1) ? odd : even) + (first_a >> 1) * 8;
    const int16_t *pb = ((first_b & 1) ? odd : even) + (first_b >> 1) * 8;
    __m256i acc_a = _mm256_setzero_si256(), acc_b = _mm256_setzero_si256();
    intptr_t t = 0;
    for (; t + 4 <= taps; t += 4) {
        acc_a = _mm256_add_epi32(acc_a, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(pa + t * 4)),
                                                          _mm256_loadu_si256((const __m256i *)(ca + t * 2))));
        acc_b = _mm256_add_epi32(acc_b, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(pb + t * 4)),
                                                          _mm256_loadu_si256((const __m256i *)(cb + t * 2))));
    }
    __m256i sums = _mm256_add_epi32(_mm256_permute2x128_si256(acc_a, acc_b, 0x20),
                                    _mm256_permute2x128_si256(acc_a, acc_b, 0x31));
    if (t < taps) {
        __m128i last_a = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(pa + t * 4)),
                                        _mm_loadu_si128((const __m128i *)(ca + t * 2)));
        __m128i last_b = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(pb + t * 4)),
                                        _mm_loadu_si128((const __m128i *)(cb + t * 2)));
        sums = _mm256_add_epi32(sums, _mm256_set_m128i(last_b, last_a));
    }
    return sums;
}

AVX2 void wi_horizontal_rgb_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                                 const intptr_t *first, intptr_t taps, intptr_t width, int32_t shift, int32_t offset,
                                 int16_t *out) {
    const __m256i bias = _mm256_set1_epi32(1 << (shift - 1)), add = _mm256_set1_epi32(offset);
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m256i low = _mm256_setr_epi8(LOW_HALVES, LOW_HALVES);
    intptr_t x = 0;
    for (; x + 2 <= width; x += 2) {
        const int32_t *c = coefficients + x * taps * 2;
        __m256i sums = pair_sums2(even, odd, c, c + taps * 2, first[x], first[x + 1], taps);
        __m256i value = _mm256_shuffle_epi8(
            _mm256_add_epi32(_mm256_sra_epi32(_mm256_add_epi32(sums, bias), count), add), low);
        // Pixel x first: x + 1 overwrites its unused fourth lane.
        _mm_storel_epi64((__m128i *)(out + x * 3), _mm256_castsi256_si128(value));
        _mm_storel_epi64((__m128i *)(out + (x + 1) * 3), _mm256_extracti128_si256(value, 1));
    }
    if (x < width) {
        __m128i sum = pair_sum(even, odd, coefficients + x * taps * 2, first[x], taps);
        __m128i value = _mm_add_epi32(_mm_sra_epi32(_mm_add_epi32(sum, _mm256_castsi256_si128(bias)), count),
                                      _mm256_castsi256_si128(add));
        _mm_storel_epi64((__m128i *)(out + x * 3), _mm_shuffle_epi8(value, _mm256_castsi256_si128(low)));
    }
}

AVX2 void wi_horizontal_rgba_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                                  const intptr_t *first, intptr_t taps, intptr_t width, float scale, float centre,
                                  int16_t *out) {
    const __m256 by = _mm256_set1_ps(scale), plus = _mm256_set1_ps(centre), magic = _mm256_set1_ps(12582912.0f);
    const __m256i low = _mm256_setr_epi8(LOW_HALVES, LOW_HALVES);
    intptr_t x = 0;
    // Separate multiply and add (no fused multiply-add), as the Swift kernel rounds.
    for (; x + 2 <= width; x += 2) {
        const int32_t *c = coefficients + x * taps * 2;
        __m256i sums = pair_sums2(even, odd, c, c + taps * 2, first[x], first[x + 1], taps);
        __m256 value = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(sums), by), plus);
        __m256i rounded = _mm256_shuffle_epi8(_mm256_castps_si256(_mm256_add_ps(value, magic)), low);
        _mm_storel_epi64((__m128i *)(out + x * 4), _mm256_castsi256_si128(rounded));
        _mm_storel_epi64((__m128i *)(out + (x + 1) * 4), _mm256_extracti128_si256(rounded, 1));
    }
    if (x < width) {
        __m128i sum = pair_sum(even, odd, coefficients + x * taps * 2, first[x], taps);
        __m128 value = _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(sum), _mm256_castps256_ps128(by)),
                                  _mm256_castps256_ps128(plus));
        __m128i rounded = _mm_castps_si128(_mm_add_ps(value, _mm256_castps256_ps128(magic)));
        _mm_storel_epi64((__m128i *)(out + x * 4), _mm_shuffle_epi8(rounded, _mm256_castsi256_si128(low)));
    }
}

// The weighted sums of 16 values at `i` of the ring rows, starting from `start`: two rows per
// `vpmaddwd` (their samples interleaved, against the pair of their coefficients). `low` gets values
// 0–3 and 8–11, `high` 4–7 and 12–15 (AVX2 interleaves within 128-bit halves).
static inline AVX2 void vertical_sums16(const int16_t *ring, const intptr_t *slots, const int16_t *c,
                                        intptr_t count, intptr_t i, int32_t start, __m256i *low, __m256i *high) {
    __m256i lo = _mm256_set1_epi32(start), hi = lo;
    intptr_t k = 0;
    for (; k + 2 <= count; k += 2) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(ring + slots[k] + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(ring + slots[k + 1] + i));
        __m256i weights = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)c[k] | ((uint32_t)(uint16_t)c[k + 1] << 16)));
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), weights));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), weights));
    }
    if (k < count) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(ring + slots[k] + i)), zero = _mm256_setzero_si256();
        __m256i weights = _mm256_set1_epi32((int32_t)(uint32_t)(uint16_t)c[k]);
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, zero), weights));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, zero), weights));
    }
    *low = lo;
    *high = hi;
}

static inline int32_t vertical_sum1(const int16_t *ring, const intptr_t *slots, const int16_t *c, intptr_t count,
                                    intptr_t i, int32_t start) {
    int32_t sum = start;
    for (intptr_t k = 0; k < count; k++) sum = wrapping_add(sum, wrapping_mul(ring[slots[k] + i], c[k]));
    return sum;
}

AVX2 void wi_vertical_bytes_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                                 intptr_t count, intptr_t values, int32_t bits, uint8_t *out) {
    const int32_t shift = bits + 7, half = 1 << (shift - 1);
    const __m128i by = _mm_cvtsi32_si128(shift);
    const __m256i mid = _mm256_set1_epi32(128);
    intptr_t i = 0;
    for (; i + 16 <= values; i += 16) {
        __m256i lo, hi;
        vertical_sums16(ring, slots, coefficients, count, i, half, &lo, &hi);
        lo = _mm256_add_epi32(_mm256_sra_epi32(lo, by), mid);
        hi = _mm256_add_epi32(_mm256_sra_epi32(hi, by), mid);
        // Saturating packs clamp as the Swift kernel does: to Int16, then to 0...255.
        __m256i words = _mm256_packs_epi32(lo, hi);
        __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storeu_si128((__m128i *)(out + i), _mm256_castsi256_si128(bytes));
    }
    for (; i < values; i++) {
        int32_t level = (vertical_sum1(ring, slots, coefficients, count, i, half) >> shift) + 128;
        out[i] = (uint8_t)(level < 0 ? 0 : level > 255 ? 255 : level);
    }
}

AVX2 void wi_vertical_sums_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                                intptr_t count, intptr_t values, int32_t *sums) {
    intptr_t i = 0;
    for (; i + 16 <= values; i += 16) {
        __m256i lo, hi;
        vertical_sums16(ring, slots, coefficients, count, i, 0, &lo, &hi);
        _mm256_storeu_si256((__m256i *)(sums + i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(sums + i + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    for (; i < values; i++) sums[i] = vertical_sum1(ring, slots, coefficients, count, i, 0);
}

// `swift_min` and `swift_max` on eight lanes.
static inline AVX2 __m256 swift_min8(__m256 x, __m256 y) { return _mm256_blendv_ps(x, y, _mm256_cmp_ps(y, x, _CMP_LT_OQ)); }
static inline AVX2 __m256 swift_max8(__m256 x, __m256 y) { return _mm256_blendv_ps(x, y, _mm256_cmp_ps(y, x, _CMP_GE_OQ)); }

// `write_pixel` for two pixels per 256-bit vector (r0 g0 b0 a0 r1 g1 b1 a1), every lane computed with the
// same operations in the same order, then each pixel written or left as `write_pixel` decides. Lanes of
// a pixel that takes the other branch may divide by zero; their results are never used.
static AVX2 intptr_t unpremultiply_rgba_avx2(const int32_t *sums, intptr_t pixels, float to_levels,
                                             float error_bound, uint8_t *out, int32_t *unsure, intptr_t *done) {
    const __m256 e = _mm256_set1_ps(error_bound), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 full = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f), limit = _mm256_set1_ps(0.99f);
    const __m256 scale = _mm256_set1_ps(to_levels), mid = _mm256_set1_ps(128.0f);
    const __m256 check_above = _mm256_set1_ps(0.5f + error_bound), unsure_above = _mm256_set1_ps(0.5f - error_bound);
    const __m256i bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                           0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    intptr_t count = 0, x = 0;
    for (; x + 2 <= pixels; x += 2) {
        __m256 p = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(sums + x * 4))),
                                               scale), mid);
        __m256 alpha = _mm256_shuffle_ps(p, p, _MM_SHUFFLE(3, 3, 3, 3));
        __m256 a_low = swift_min8(_mm256_sub_ps(alpha, e), full), a_high = swift_min8(_mm256_add_ps(alpha, e), full);
        __m256 c_low = _mm256_sub_ps(p, e), c_high = _mm256_add_ps(p, e);
        __m256 low = _mm256_div_ps(c_low, _mm256_blendv_ps(a_low, a_high, _mm256_cmp_ps(c_low, zero, _CMP_GE_OQ)));
        __m256 high = _mm256_div_ps(c_high, _mm256_blendv_ps(a_high, a_low, _mm256_cmp_ps(c_high, zero, _CMP_GE_OQ)));
        __m256 width = _mm256_sub_ps(swift_min8(swift_max8(high, zero), one), swift_min8(swift_max8(low, zero), one));
        int wide = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(width, full), limit, _CMP_GE_OQ));
        int checked = _mm256_movemask_ps(_mm256_cmp_ps(alpha, check_above, _CMP_GE_OQ));
        int doubtful = _mm256_movemask_ps(_mm256_cmp_ps(alpha, unsure_above, _CMP_GT_OQ));
        // The pixel's value, as write_pixel writes it once it is sure.
        __m256 clamped = swift_min8(full, swift_max8(zero, alpha));
        __m256 positive = _mm256_cmp_ps(clamped, zero, _CMP_GT_OQ);
        __m256 colour = _mm256_and_ps(_mm256_mul_ps(p, _mm256_div_ps(full, clamped)), positive);
        __m256 value = _mm256_blend_ps(colour, clamped, 0x88);
        __m256i rounded = _mm256_cvttps_epi32(_mm256_add_ps(swift_min8(full, swift_max8(zero, value)), half));
        __m256i packed = _mm256_shuffle_epi8(rounded, bytes);
        uint32_t written[2] = {(uint32_t)_mm256_extract_epi32(packed, 0), (uint32_t)_mm256_extract_epi32(packed, 4)};
        for (int k = 0; k < 2; k++) {
            int lanes = 4 * k;
            int is_unsure = ((checked >> (lanes + 3)) & 1) ? ((wide >> lanes) & 7) != 0 : ((doubtful >> (lanes + 3)) & 1);
            if (is_unsure) {
                unsure[count++] = (int32_t)(x + k);
            } else {
                memcpy(out + (x + k) * 4, &written[k], 4);
            }
        }
    }
    *done = x;
    return count;
}

#else

int wi_resampling_has_avx2(void) { return 0; }
void wi_widen_premultiplying_avx2(const uint8_t *src, int16_t *out, intptr_t start, intptr_t end) { __builtin_trap(); }
void wi_horizontal_gray_avx2(const int16_t *src, const int16_t *coefficients, const intptr_t *first,
                             intptr_t taps, intptr_t width, int32_t shift, int32_t offset, int16_t *out) { __builtin_trap(); }
void wi_pair_pixels_avx2(const int16_t *widened, int16_t *even, int16_t *odd, intptr_t start,
                         intptr_t end) { __builtin_trap(); }
void wi_pair_rgb_avx2(const uint8_t *src, intptr_t span_start, intptr_t span_end, int16_t *even, int16_t *odd,
                      intptr_t start, intptr_t end) { __builtin_trap(); }
void wi_horizontal_rgb_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                            const intptr_t *first, intptr_t taps, intptr_t width, int32_t shift, int32_t offset,
                            int16_t *out) { __builtin_trap(); }
void wi_horizontal_rgba_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                             const intptr_t *first, intptr_t taps, intptr_t width, float scale, float centre,
                             int16_t *out) { __builtin_trap(); }
void wi_vertical_bytes_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                            intptr_t count, intptr_t values, int32_t bits, uint8_t *out) { __builtin_trap(); }
void wi_vertical_sums_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                           intptr_t count, intptr_t values, int32_t *sums) { __builtin_trap(); }

#endif
