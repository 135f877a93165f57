// libavif: container parsing, AV1 decode/encode through the codecs it was built with, YUV<->RGB.
#include <avif/avif.h>
