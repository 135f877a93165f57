// Undoing PNG's row filters (PNG specification, section 9), for the direct image-data path.
#ifndef CPNG_UNFILTER_H
#define CPNG_UNFILTER_H
#include <stddef.h>
#include <stdint.h>

/// Reconstructs `row` (`size` bytes, `bpp` bytes per pixel) in place from its filtered bytes and the
/// reconstructed row above (`prior`, zeros for the first row). Returns 0 for a filter type other than
/// 0-4, leaving the row unspecified.
int cpng_unfilter_row(int filter, uint8_t *row, const uint8_t *prior, size_t size, int bpp);

#endif
