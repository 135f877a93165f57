// libheif: HEIF container (grids, alpha, thumbnails, transformations), HEVC/AV1 through its plugins.
#include <libheif/heif.h>
