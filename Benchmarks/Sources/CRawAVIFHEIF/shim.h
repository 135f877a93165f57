// libavif, libheif and libjxl called directly: the baseline for the AVIF, HEIF and JPEG XL coders.
#include <avif/avif.h>
#include <libheif/heif.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
