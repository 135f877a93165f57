// libwebp: still decode/encode, the demuxer (frames, chunks) and the animation encoder.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>
