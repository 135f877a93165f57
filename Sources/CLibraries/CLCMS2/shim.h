// Little CMS 2 (lcms2): ICC profiles and colour transforms, used by WebImageColorManagement.
#include <lcms2.h>
