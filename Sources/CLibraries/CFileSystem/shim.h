// File-system calls Glibc's Swift module does not expose: extended attributes, and the futimens/utimensat
// special values, which are macros Swift cannot import.
#include <sys/stat.h>
#include <sys/xattr.h>

/// `UTIME_NOW`: set this time to the current time.
static inline long cfs_utime_now(void) { return UTIME_NOW; }
/// `UTIME_OMIT`: leave this time unchanged.
static inline long cfs_utime_omit(void) { return UTIME_OMIT; }
