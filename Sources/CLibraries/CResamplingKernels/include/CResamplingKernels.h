// The fixed-point resampler's inner loops written with x86-64 AVX2 intrinsics, for CPUs that have AVX2.
//
// A Swift package compiles for x86-64's baseline (SSE2), where LLVM cannot use `vpmaddwd` on 16 lanes or
// `pshufb`; these functions carry their own `target("avx2")` attribute, so the rest of the package keeps
// the baseline and `wi_resampling_has_avx2()` decides at run time. Each computes exactly what the Swift
// kernel of the same name in Sources/Core/Image/Resampling/FixedPointResampler+Kernels.swift computes
// (integer sums in the same 32-bit lanes, the same rounding), so the bytes do not depend on the CPU.
// On other architectures `wi_resampling_has_avx2()` is 0 and the other functions must not be called.
#ifndef C_RESAMPLING_KERNELS_H
#define C_RESAMPLING_KERNELS_H

#include <stdint.h>

/// 1 when this CPU runs the AVX2 kernels below (x86-64 with AVX2), else 0.
int wi_resampling_has_avx2(void);


/// RGBA bytes of pixels `start..<end` to premultiplied samples: colour × alpha, alpha × 255, less 32512.
void wi_widen_premultiplying_avx2(const uint8_t *src, int16_t *out, intptr_t start, intptr_t end);

/// One widened gray row filtered into `width` samples, `(sum + 2^(shift-1)) >> shift + offset`;
/// `coefficients` hold `taps` (a multiple of 8) per output, `first` the first source sample of each.
void wi_horizontal_gray_avx2(const int16_t *src, const int16_t *coefficients, const intptr_t *first,
                             intptr_t taps, intptr_t width, int32_t shift, int32_t offset, int16_t *out);

/// A widened four-lane row (RGB or RGBA) as pairs of neighbouring pixels with their lanes interleaved
/// (r0 r1 g0 g1 b0 b1 a0 a1), the order `vpmaddwd` weighs a pair of taps in: pair `j` of `even` holds
/// pixels 2j and 2j+1, of `odd` pixels 2j+1 and 2j+2; both 8 Int16 per pair. Fills pairs `start..<end`
/// (`start` even, `end` rounded up to even); `widened` must hold pixel `2 * end + 3`.
void wi_pair_pixels_avx2(const int16_t *widened, int16_t *even, int16_t *odd, intptr_t start, intptr_t end);

/// RGB bytes straight to the pairs of `wi_pair_pixels_avx2` (what widening pixels
/// `span_start..<span_end` to four Int16 lanes, the fourth 0, and pairing them gives, pixels outside that
/// span 0), without a widened row in between. Reads only the span's bytes of `src`.
void wi_pair_rgb_avx2(const uint8_t *src, intptr_t span_start, intptr_t span_end, int16_t *even, int16_t *odd,
                      intptr_t start, intptr_t end);

/// A row in pairs (`wi_pair_pixels_avx2`) filtered into `width` pixels: output `x` weighs `taps` (even)
/// pixels from `first[x]` by `coefficients + x * taps * 2`, each pair of taps (c0, c1) as one 32-bit
/// value repeated four times. RGB: `(sum + 2^(shift-1)) >> shift + offset`, four lanes written at
/// `out + x * 3` (the next pixel overwrites the fourth; `out` has slack for the last).
void wi_horizontal_rgb_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                            const intptr_t *first, intptr_t taps, intptr_t width, int32_t shift, int32_t offset,
                            int16_t *out);

/// As `wi_horizontal_rgb_avx2` for premultiplied RGBA: each lane's sum times `scale` plus `centre` in
/// Float, rounded to the nearest integer (ties to even), four lanes at `out + x * 4`.
void wi_horizontal_rgba_avx2(const int16_t *even, const int16_t *odd, const int32_t *coefficients,
                             const intptr_t *first, intptr_t taps, intptr_t width, float scale, float centre,
                             int16_t *out);

/// `values` samples of the `count` ring rows at offsets `slots` from `ring`, weighed by `coefficients`,
/// to bytes: `(2^(bits+6) + sum) >> (bits + 7) + 128`, clamped to 0...255. The rows have at least 8
/// values of slack past `values` rounded up to 8.
void wi_vertical_bytes_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                            intptr_t count, intptr_t values, int32_t bits, uint8_t *out);

/// As `wi_vertical_bytes_avx2`, the plain 32-bit sums (no bias, no shift) into `sums`.
void wi_vertical_sums_avx2(const int16_t *ring, const intptr_t *slots, const int16_t *coefficients,
                           intptr_t count, intptr_t values, int32_t *sums);

/// One output row of premultiplied RGBA vertical sums (`wi_vertical_sums_avx2`) to straight RGBA bytes:
/// each sum times `to_levels` plus 128 is a premultiplied level, written as `writePixel` in
/// FixedPointResampler+Kernels.swift writes it (the same Float operations in the same order). The pixels
/// whose colour `error_bound` cannot keep within a level of the Float engine are not written; their
/// indices go to `unsure`, and their count is returned. `avx2` (only where `wi_resampling_has_avx2()`):
/// two pixels per AVX2 vector, the same results; otherwise portable C.
intptr_t wi_unpremultiply_rgba(const int32_t *sums, intptr_t pixels, float to_levels, float error_bound,
                               int avx2, uint8_t *out, int32_t *unsure);

#endif
