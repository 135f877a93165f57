// pixman (Debian libpixman-1-dev): SIMD bilinear affine transforms for RotateTransformer.
#include <pixman.h>
