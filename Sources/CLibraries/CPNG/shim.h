// libpng's simplified API (png_image_*): it keeps libpng's setjmp/longjmp error handling inside libpng
// and reports failures as a return value and a message, so no longjmp ever crosses a Swift frame.
#include <png.h>
