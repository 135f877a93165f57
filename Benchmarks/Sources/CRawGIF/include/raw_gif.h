#ifndef RAW_GIF_H
#define RAW_GIF_H
#include <stddef.h>
#include <stdint.h>

/// Decodes a GIF held in memory with giflib (DGifSlurp) and composes every frame onto one RGBA8
/// canvas in plain C, the way a C program would: clip to the screen, skip the transparent index,
/// honour disposal 2 (clear to transparent) and 3 (restore the canvas saved before the frame).
/// With `keep_frames`, each composed frame is also copied into a buffer of its own, all held until
/// the end (what holding every frame costs: our preloadAllFrames). Returns the number of frames
/// composed, or -1 on error. `checksum` receives a byte of each frame so the work cannot be optimized away.
long raw_gif_decode_compose(const uint8_t *data, size_t size, int keep_frames, uint32_t *checksum);
#endif
