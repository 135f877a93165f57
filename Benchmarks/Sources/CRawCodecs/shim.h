// The raw C libraries, called directly by the coder benchmark as the baseline we are compared with.
#include <turbojpeg.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <gif_lib.h>
