// libavif and libheif called directly: the baseline for the AVIF and HEIF coders.
#include <avif/avif.h>
#include <libheif/heif.h>
