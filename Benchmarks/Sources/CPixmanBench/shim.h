// pixman, the peer geometry-bench measures our rotation and compositing against.
#include <pixman.h>
