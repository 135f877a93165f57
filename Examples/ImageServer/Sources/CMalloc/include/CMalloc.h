#ifndef CMALLOC_H
#define CMALLOC_H

/// glibc's allocator controls that Swift's Glibc module does not export (<malloc.h>).

/// Arenas glibc may create in the server's process, set when the program loads (see CMalloc.c): two keep
/// allocation from contending across the few worker threads while bounding the memory that sits free in
/// arenas (glibc's default is eight per core).
#define CMALLOC_SERVER_ARENAS 2

/// Blocks up to this size come from the arenas rather than from mmap, set when the program loads: a request's
/// decoded and encoder buffers (a few MB each) would otherwise be mapped and unmapped every time and their
/// pages faulted in again (about a tenth of a WebP request's CPU). A fixed threshold also stops glibc's
/// own adjustment of it.
#define CMALLOC_SERVER_MMAP_THRESHOLD (32 << 20)

/// Free memory an arena keeps at its top before giving it back on free, set when the program loads: well
/// above one request's working set, so a request does not return pages the next one faults in again. What
/// stays free is handed back by the periodic trim (`MemoryTrimmer`), not on every free.
#define CMALLOC_SERVER_TRIM_THRESHOLD (64 << 20)

/// Caps the arenas glibc creates (mallopt M_ARENA_MAX); returns 1 on success.
int cmalloc_limit_arenas(int count);

/// Returns the free pages of every arena to the system (malloc_trim); 1 when memory was released.
int cmalloc_trim(void);

#endif
